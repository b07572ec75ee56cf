//go:build unix

package server

import (
	"bytes"
	"testing"

	"github.com/aplite/aplite/bench/gen"
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

// BenchmarkHECIngest holds the HEC door to plain NDJSON on the same
// 10 000 generated events over loopback TCP (benchDoors says how).
func BenchmarkHECIngest(b *testing.B) {
	hecBenchDoors(b, benchHTTP)
}

// BenchmarkHECIngestInProcess is the same comparison without the
// network: the server's own work.
func BenchmarkHECIngestInProcess(b *testing.B) {
	hecBenchDoors(b, benchInProcess)
}

func hecBenchDoors(b *testing.B, post benchPost) {
	nd := gen.NDJSON(1, 10000)
	benchDoors(b, 10000, int64(len(nd)), post,
		benchDoor{name: "ndjson", path: "/v1/ingest/bench", body: nd,
			headers: doorHeaders("Content-Type", "application/x-ndjson")},
		benchDoor{name: "hec", path: "/services/collector/event?index=bench", body: hecEnvelopes(nd),
			headers: map[string]string{"Authorization": "Splunk " + doorBenchToken, "Content-Type": "application/json", "X-Axiom-Org-Id": "default"}})
}
