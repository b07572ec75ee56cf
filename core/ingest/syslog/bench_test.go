package syslog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// benchBodies returns 10 000 RFC 5424 messages as octet-counted frames
// and the NDJSON of the events they become, field for field, so the two
// decoders are measured on the same events:
//
//	go test -run XXX -bench 'Decode' -count 6 ./core/ingest/syslog
func benchBodies() (frames, ndjson []byte) {
	var f, n bytes.Buffer
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for i := range 10000 {
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

func BenchmarkDecodeSyslog(b *testing.B) {
	frames, _ := benchBodies()
	b.SetBytes(int64(len(frames)))
	b.ReportAllocs()
	for range b.N {
		rb := store.NewRowsBuilder()
		if res := Decode(frames, now, rb); res.Ingested != 10000 {
			b.Fatalf("%+v", res)
		}
		rb.Finish(now)
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkDecodeSameNDJSON(b *testing.B) {
	_, ndjson := benchBodies()
	b.SetBytes(int64(len(ndjson)))
	b.ReportAllocs()
	for range b.N {
		rb := store.NewRowsBuilder()
		res, err := ingest.Decode(ndjson, ingest.Options{Format: ingest.NDJSON, Now: now}, rb)
		if err != nil || res.Ingested != 10000 {
			b.Fatalf("%+v %v", res, err)
		}
		rb.Finish(now)
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "events/s")
}
