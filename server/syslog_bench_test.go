package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
)

// The syslog doors against plain NDJSON on the same events: 10 000
// RFC 5424 messages (ten hosts, five applications, a request line each)
// and the NDJSON of the events they become, field for field. Each
// benchmark reports events/s; run them together:
//
//	go test -run XXX -bench 'SyslogDoor' -benchtime 20x ./server/

const benchEvents = 10000

// benchSyslog returns the events as octet-counted RFC 5424 frames and as
// NDJSON with the same fields.
func benchSyslog() (frames, ndjson []byte) {
	var f, n bytes.Buffer
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for i := range benchEvents {
		ts := t0.Add(time.Duration(i) * time.Millisecond).Format("2006-01-02T15:04:05.000000Z07:00")
		host, app, proc := fmt.Sprintf("web-%d.example.com", i%10), fmt.Sprintf("app%d", i%5), fmt.Sprint(1000+i%50)
		msg := fmt.Sprintf("GET /api/v1/items/%d HTTP/1.1 status=%d bytes=%d duration=%dms ua=\"curl/8.1\"", i*7, 200+i%5, 100+i%900, i%250)
		line := fmt.Sprintf("<134>1 %s %s %s %s - - %s", ts, host, app, proc, msg)
		fmt.Fprintf(&f, "%d %s", len(line), line)
		ev, _ := json.Marshal(map[string]any{"_time": ts, "hostname": host, "application": app, "procid": proc,
			"facility": "local0", "severity": "info", "message": msg})
		n.Write(ev)
		n.WriteByte('\n')
	}
	return f.Bytes(), n.Bytes()
}

// benchServer serves HTTP on loopback with an in-memory store and a
// "bench" dataset.
func benchServer(b *testing.B) (*Server, string) {
	s, err := New(Config{DataDir: b.TempDir(), Token: "xapt-bench-token-0001", Log: &bytes.Buffer{},
		DB: db.OpenMemory(db.Options{Isolated: true})})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(ln)
	b.Cleanup(func() { s.Shutdown(b.Context()) })
	if err := s.ensureDataset(s.cfg.OrgID, "bench"); err != nil {
		b.Fatal(err)
	}
	return s, "http://" + ln.Addr().String() + "/v1/datasets/bench/ingest"
}

// BenchmarkSyslogDoorNDJSON is the baseline: the events as NDJSON on
// /v1/datasets/{id}/ingest.
func BenchmarkSyslogDoorNDJSON(b *testing.B) {
	_, ndjson := benchSyslog()
	_, url := benchServer(b)
	benchPostTo(b, url, "application/x-ndjson", ndjson)
}

// BenchmarkSyslogDoorHeroku posts the frames as a Heroku drain's logplex
// body.
func BenchmarkSyslogDoorHeroku(b *testing.B) {
	frames, _ := benchSyslog()
	_, url := benchServer(b)
	benchPostTo(b, url, logplexType, frames)
}

func benchPostTo(b *testing.B, url, ct string, body []byte) {
	c := &fasthttp.Client{ReadTimeout: time.Minute}
	q, r := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(q)
	defer fasthttp.ReleaseResponse(r)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		q.Reset()
		q.SetRequestURI(url)
		q.Header.SetMethod("POST")
		q.Header.Set("Authorization", "Bearer xapt-bench-token-0001")
		q.Header.Set("X-Axiom-Org-Id", "default")
		q.Header.SetContentType(ct)
		q.SetBodyRaw(body)
		if err := c.Do(q, r); err != nil || r.StatusCode() != 200 || !bytes.Contains(r.Body(), []byte(`"ingested":10000,`)) {
			b.Fatalf("ingest: %v %d %s", err, r.StatusCode(), r.Body())
		}
	}
	b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSyslogDoorListener writes the frames down one TCP connection
// to the syslog listener and waits until all are stored (the ingest event
// counter, which counts after the durable append).
func BenchmarkSyslogDoorListener(b *testing.B) {
	frames, _ := benchSyslog()
	s, _ := benchServer(b)
	l, err := s.ListenSyslog("127.0.0.1:0", SyslogConfig{Dataset: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.SetBytes(int64(len(frames)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := c.Write(frames); err != nil {
			b.Fatal(err)
		}
		want := int64(benchEvents * (i + 1))
		for s.metrics.ingestEvents.Load() < want {
			time.Sleep(100 * time.Microsecond)
		}
	}
	b.ReportMetric(float64(benchEvents*b.N)/b.Elapsed().Seconds(), "events/s")
}
