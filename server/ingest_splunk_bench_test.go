//go:build linux

package server

import (
	"bytes"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/db"
)

// hecEnvelopes wraps each NDJSON line as a HEC envelope's event, one
// envelope per line: the events stored are the same as the NDJSON's.
func hecEnvelopes(nd []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(bytes.TrimSpace(nd), []byte{'\n'}) {
		out = append(out, `{"event":`...)
		out = append(out, line...)
		out = append(out, "}\n"...)
	}
	return out
}

// BenchmarkHECIngest measures what the HEC door costs over plain NDJSON
// on the same 10 000 generated events, end to end over loopback TCP into
// an in-memory store (so the conversion is as large a share as it can
// be): compare the two sub-benchmarks. On a shared machine wall time
// swings with the neighbours; cpu-ms/op (the process's user and system
// CPU, client included) and the events per CPU-second it gives hold
// still:
//
//	go test -run '^$' -bench BenchmarkHECIngest -benchtime 30x -count 5 ./server/
func BenchmarkHECIngest(b *testing.B) {
	const events = 10000
	nd := gen.NDJSON(1, events)
	hec := hecEnvelopes(nd)
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
	defer s.Shutdown(b.Context())
	if _, err := s.db.Create("bench"); err != nil {
		b.Fatal(err)
	}
	c := &fasthttp.Client{ReadTimeout: time.Minute}
	base := "http://" + ln.Addr().String()
	for _, tc := range []struct {
		name, path, auth, ct string
		body                 []byte
	}{
		{"ndjson", "/v1/ingest/bench", "Bearer xapt-bench-token-0001", "application/x-ndjson", nd},
		{"hec", "/services/collector/event?index=bench", "Splunk xapt-bench-token-0001", "application/json", hec},
	} {
		b.Run(tc.name, func(b *testing.B) {
			q, r := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(q)
			defer fasthttp.ReleaseResponse(r)
			b.SetBytes(int64(len(tc.body)))
			b.ReportAllocs()
			cpu0 := hecCPU()
			for b.Loop() {
				q.Reset()
				q.SetRequestURI(base + tc.path)
				q.Header.SetMethod("POST")
				q.Header.Set("Authorization", tc.auth)
				q.Header.Set("X-Axiom-Org-Id", "default")
				q.Header.SetContentType(tc.ct)
				q.SetBodyRaw(tc.body)
				if err := c.Do(q, r); err != nil || r.StatusCode() != 200 {
					b.Fatalf("%s: %v %d %s", tc.name, err, r.StatusCode(), r.Body())
				}
			}
			cpu := (hecCPU() - cpu0).Seconds()
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(events)*float64(b.N)/cpu, "events/cpu-s")
		})
	}
}

// hecCPU is the user and system CPU time the process has used.
func hecCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
