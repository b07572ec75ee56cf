//go:build unix

package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// BenchmarkFirehoseVsNDJSON sends the same 10 000 generated access-log
// events over loopback TCP as one plain NDJSON body to /v1/ingest/{id}
// and as one Firehose delivery (one base64 record per event) to its
// /firehose door (benchDoors says how the two are held side by side).
// SetBytes is the events' NDJSON size in both, so MB/s compare too.
func BenchmarkFirehoseVsNDJSON(b *testing.B) {
	firehoseBenchDoors(b, benchHTTP)
}

// BenchmarkFirehoseVsNDJSONInProcess is the same comparison without the
// network: the server's own work.
func BenchmarkFirehoseVsNDJSONInProcess(b *testing.B) {
	firehoseBenchDoors(b, benchInProcess)
}

func firehoseBenchDoors(b *testing.B, post benchPost) {
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
	benchDoors(b, len(lines), int64(len(events)), post,
		benchDoor{name: "ndjson", path: "/v1/ingest/bench", body: events,
			headers: doorHeaders("Content-Type", "application/x-ndjson")},
		benchDoor{name: "firehose", path: "/v1/ingest/bench/firehose", body: delivery,
			headers: map[string]string{firehoseKeyHeader: doorBenchToken, "Content-Type": "application/json",
				firehoseRequestIDHeader: "bench", "X-Amz-Firehose-Protocol-Version": "1.0", "X-Axiom-Org-Id": "default"}})
}

// BenchmarkFirehoseRecords is the door's own work on the delivery of
// BenchmarkFirehoseVsNDJSON, turning it into NDJSON, beside decoding that
// NDJSON into rows (the work plain ingest does): "scan" is the door's
// path, "general" the envelope decoded whole first (a body in another
// shape).
func BenchmarkFirehoseRecords(b *testing.B) {
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
	run := func(name string, f func() error) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(events)))
			b.ReportAllocs()
			for b.Loop() {
				if err := f(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(lines))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
	buf := new(firehoseBuf)
	for range 3 {
		run("scan", func() error {
			_, _, ok := buf.scanDelivery(delivery, 1<<30)
			if !ok {
				return fmt.Errorf("not scanned")
			}
			return nil
		})
		run("general", func() error {
			_, _, err := generalDelivery(buf, delivery, 1<<30)
			return err
		})
		run("decode-ndjson", func() error {
			_, err := ingest.Decode(events, ingest.Options{Format: ingest.NDJSON}, store.NewRowsBuilder())
			return err
		})
	}
}
