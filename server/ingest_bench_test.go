package server

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
)

// BenchmarkIngestHTTP measures ingest end to end over loopback TCP: NDJSON
// bodies of 10 000 generated access-log events, decoded, appended to an
// in-memory store and answered. Compare with BenchmarkIngestInProcess for
// the cost of the HTTP layer.
func BenchmarkIngestHTTP(b *testing.B) {
	body := gen.NDJSON(1, 10000)
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
	c := &fasthttp.Client{ReadTimeout: time.Minute, MaxConnsPerHost: 64}
	url := "http://" + ln.Addr().String() + "/v1/datasets/bench/ingest"
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		q, r := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(q)
		defer fasthttp.ReleaseResponse(r)
		for pb.Next() {
			q.Reset()
			q.SetRequestURI(url)
			q.Header.SetMethod("POST")
			q.Header.Set("Authorization", "Bearer xapt-bench-token-0001")
			q.Header.Set("X-Axiom-Org-Id", "default")
			q.Header.SetContentType("application/x-ndjson")
			q.SetBodyRaw(body)
			if err := c.Do(q, r); err != nil || r.StatusCode() != 200 {
				b.Errorf("ingest: %v %d %s", err, r.StatusCode(), r.Body())
				return
			}
		}
	})
}

// BenchmarkIngestInProcess is the same work without HTTP: decode and
// append into an in-memory store.
func BenchmarkIngestInProcess(b *testing.B) {
	body := gen.NDJSON(1, 10000)
	db := store.OpenMemory(store.Options{})
	defer db.Close()
	ds, err := db.Create("bench")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rb := store.NewRowsBuilder()
			now := time.Now().UnixNano()
			if _, err := ingest.Decode(body, ingest.Options{Format: ingest.NDJSON, Now: now}, rb); err != nil {
				b.Error(err)
				return
			}
			if _, err := ds.Append(rb.Finish(now)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
