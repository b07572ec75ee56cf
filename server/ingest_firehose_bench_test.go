package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/db"
)

// BenchmarkFirehoseVsNDJSON sends the same 10 000 generated access-log
// events over loopback TCP as one plain NDJSON body to /v1/ingest/{id}
// and as one Firehose delivery (one base64 record per event) to its
// /firehose door, so the door's cost (envelope, base64, the rebuilt
// NDJSON, a body a third larger) reads directly off events/s. SetBytes is
// the events' NDJSON size in both, so MB/s compare too.
//
// Each run has a server and store of its own, shut down before the next
// starts, and the two alternate: the store seals and compacts blocks in
// the background, and a run sharing a store would pay for the other's.
func BenchmarkFirehoseVsNDJSON(b *testing.B) {
	events := gen.NDJSON(1, 10000)
	lines := bytes.SplitAfter(bytes.TrimSpace(events), []byte("\n"))
	recs := make([]map[string]string, len(lines))
	for i, l := range lines {
		recs[i] = map[string]string{"data": base64.StdEncoding.EncodeToString(l)}
	}
	delivery, err := json.Marshal(map[string]any{"requestId": "bench", "timestamp": time.Now().UnixMilli(), "records": recs})
	if err != nil {
		b.Fatal(err)
	}
	const token = "xapt-bench-token-0001"
	ndjson := func(b *testing.B) {
		benchIngest(b, "/v1/ingest/bench", events, len(lines), int64(len(events)), map[string]string{"Authorization": "Bearer " + token,
			"X-Axiom-Org-Id": "default", "Content-Type": "application/x-ndjson"})
	}
	firehose := func(b *testing.B) {
		benchIngest(b, "/v1/ingest/bench/firehose", delivery, len(lines), int64(len(events)), map[string]string{firehoseKeyHeader: token,
			"X-Axiom-Org-Id": "default", "Content-Type": "application/json", firehoseRequestIDHeader: "bench"})
	}
	for i := range rounds {
		if i%2 == 0 {
			b.Run("ndjson", ndjson)
			b.Run("firehose", firehose)
		} else {
			b.Run("firehose", firehose)
			b.Run("ndjson", ndjson)
		}
	}
}

// rounds is how many times BenchmarkFirehoseVsNDJSON runs each door.
const rounds = 6

// benchIngest serves a fresh in-memory store with dataset bench and
// posts body to path on it; body holds events events, size bytes of them
// as NDJSON.
func benchIngest(b *testing.B, path string, body []byte, events int, size int64, headers map[string]string) {
	const token = "xapt-bench-token-0001"
	s, err := New(Config{DataDir: b.TempDir(), Token: token, Log: &bytes.Buffer{},
		DB: db.OpenMemory(db.Options{Isolated: true})})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(b.Context())
	if _, err := s.db.Create("bench"); err != nil {
		b.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + path
	c := &fasthttp.Client{ReadTimeout: time.Minute}
	q, r := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(q)
	defer fasthttp.ReleaseResponse(r)
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		q.Reset()
		q.SetRequestURI(url)
		q.Header.SetMethod("POST")
		for k, v := range headers {
			q.Header.Set(k, v)
		}
		q.SetBodyRaw(body)
		if err := c.Do(q, r); err != nil || r.StatusCode() != 200 {
			b.Fatalf("%s: %v %d %s", url, err, r.StatusCode(), r.Body())
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	// The machine may be shared: the process's CPU time per request
	// (server, client and the store's background work) is steadier than
	// wall time.
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

// cpuTime is the process's user and system CPU time in ns.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
