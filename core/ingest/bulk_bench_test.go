package ingest

import (
	"bytes"
	"testing"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core/store"
)

// BenchmarkDecodeBulk decodes the same 10 000 generated events as NDJSON
// (time under @timestamp) and as an Elasticsearch bulk body (Fluent Bit's
// create action before each): the decoder's share of the bulk door's
// cost over plain NDJSON, without HTTP or storage.
func BenchmarkDecodeBulk(b *testing.B) {
	docs := bytes.ReplaceAll(gen.NDJSON(1, 10000), []byte(`{"_time":`), []byte(`{"@timestamp":`))
	action := []byte(`{"create":{"_index":"bench","_type":"_doc"}}` + "\n")
	var bulk []byte
	for line := range bytes.Lines(docs) {
		bulk = append(append(bulk, action...), line...)
	}
	opts := Options{Format: NDJSON, TimestampField: "@timestamp", Now: testNow}
	run := func(b *testing.B, body []byte, decode func([]byte, *store.RowsBuilder) (int, error)) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			rb := store.NewRowsBuilder()
			if n, err := decode(body, rb); err != nil || n != 10000 {
				b.Fatalf("%d events, %v", n, err)
			}
		}
		b.ReportMetric(10000*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	}
	b.Run("ndjson", func(b *testing.B) {
		run(b, docs, func(body []byte, rb *store.RowsBuilder) (int, error) {
			res, err := Decode(body, opts, rb)
			return res.Ingested, err
		})
	})
	b.Run("bulk", func(b *testing.B) {
		run(b, bulk, func(body []byte, rb *store.RowsBuilder) (int, error) {
			res, err := DecodeBulk(body, opts, rb)
			return res.Ingested, err
		})
	})
}
