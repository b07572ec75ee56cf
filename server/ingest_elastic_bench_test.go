package server

import (
	"bytes"
	"net"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/db"
)

// BenchmarkIngestElasticHTTP holds the Elasticsearch door to plain NDJSON
// on the same 10 000 generated events, end to end over loopback TCP as
// BenchmarkIngestHTTP: "ndjson" posts them to /v1/ingest as they are
// (_time), "ndjson-@timestamp" with the time under @timestamp and
// ?timestamp-field=@timestamp, "elastic" the same documents as a _bulk
// body with Fluent Bit's create action before each. The door should cost
// at most 15% of events/s over ndjson-@timestamp (the same documents).
func BenchmarkIngestElasticHTTP(b *testing.B) {
	events := gen.NDJSON(1, 10000)
	docs := bytes.ReplaceAll(events, []byte(`{"_time":`), []byte(`{"@timestamp":`))
	action := []byte(`{"create":{"_index":"bench","_type":"_doc"}}` + "\n")
	bulk := make([]byte, 0, len(docs)+10000*len(action))
	for line := range bytes.Lines(docs) {
		bulk = append(append(bulk, action...), line...)
	}
	b.Run("ndjson", func(b *testing.B) { benchIngestHTTP(b, "/v1/ingest/bench", events, 10000) })
	b.Run("ndjson-@timestamp", func(b *testing.B) {
		benchIngestHTTP(b, "/v1/ingest/bench?timestamp-field=@timestamp", docs, 10000)
	})
	b.Run("elastic", func(b *testing.B) { benchIngestHTTP(b, "/v1/ingest/bench/elastic/_bulk", bulk, 10000) })
}

// benchIngestHTTP posts body (n events) to path on a fresh server from
// parallel clients and reports events/s besides the body's MB/s.
func benchIngestHTTP(b *testing.B, path string, body []byte, n int) {
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
	url := "http://" + ln.Addr().String() + path
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
			if err := c.Do(q, r); err != nil || r.StatusCode() != 200 || bytes.Contains(r.Body(), []byte(`"errors":true`)) {
				b.Errorf("ingest: %v %d %.300s", err, r.StatusCode(), r.Body())
				return
			}
		}
	})
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
