//go:build unix

package server

import (
	"bytes"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/db"
)

// BenchmarkIngestElasticHTTP holds the Elasticsearch door to plain NDJSON
// on the same 10 000 generated events over loopback TCP (benchDoors says
// how): "ndjson-@timestamp" posts them to /v1/ingest with the time under
// @timestamp and ?timestamp-field=@timestamp, "elastic" the same
// documents as a _bulk body with Fluent Bit's create action before each,
// "ndjson" the events as generated (_time). The door should cost at most
// 15% CPU per event over ndjson-@timestamp, the same documents.
func BenchmarkIngestElasticHTTP(b *testing.B) {
	elasticBenchDoors(b, benchHTTP)
}

// BenchmarkIngestElasticInProcess is the same comparison without the
// network: the server's own work.
func BenchmarkIngestElasticInProcess(b *testing.B) {
	elasticBenchDoors(b, benchInProcess)
}

func elasticBenchDoors(b *testing.B, post benchPost) {
	events := gen.NDJSON(1, 10000)
	docs := bytes.ReplaceAll(events, []byte(`{"_time":`), []byte(`{"@timestamp":`))
	action := []byte(`{"create":{"_index":"bench","_type":"_doc"}}` + "\n")
	bulk := make([]byte, 0, len(docs)+10000*len(action))
	for line := range bytes.Lines(docs) {
		bulk = append(append(bulk, action...), line...)
	}
	nd := doorHeaders("Content-Type", "application/x-ndjson")
	benchDoors(b, 10000, int64(len(docs)), post,
		benchDoor{name: "ndjson-@timestamp", path: "/v1/ingest/bench?timestamp-field=@timestamp", body: docs, headers: nd},
		benchDoor{name: "elastic", path: "/v1/ingest/bench/elastic/_bulk", body: bulk, headers: nd},
		benchDoor{name: "ndjson", path: "/v1/ingest/bench", body: events, headers: nd})
}

// BenchmarkBulkAnswer builds the answer to a 10 000-document bulk
// request, every document stored: the door's own work after the decode
// (BenchmarkDecodeBulk in core/ingest measures that beside NDJSON).
func BenchmarkBulkAnswer(b *testing.B) {
	res := db.BulkResult{Items: make([]db.BulkItem, 10000)}
	for i := range res.Items {
		res.Items[i] = db.BulkItem{Op: db.BulkCreate, Index: "bench", Row: i}
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = appendBulkAnswer(buf[:0], "bench", &res, time.Millisecond)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportMetric(10000*float64(b.N)/b.Elapsed().Seconds(), "items/s")
}
