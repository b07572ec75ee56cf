package ingest

import (
	"testing"

	"github.com/aplite/aplite/bench/gen"
)

// genEvents is the event count of a 4 MB body of the shared generator's
// access logs, the body the end-to-end HTTP ingest benchmark posts.
const genEvents = 11000

// genBody returns a 4 MB NDJSON body from the shared generator, whose
// value distributions (40 user agents, thousands of URIs, unique ids) are
// what the end-to-end benchmarks and the string interning are tuned for.
func genBody() []byte {
	return gen.New(genEvents).SetEventsPerDay(genEvents*256).AppendNDJSON(nil, genEvents)
}

// BenchmarkDecodeNDJSONGen decodes the end-to-end benchmark's body.
func BenchmarkDecodeNDJSONGen(b *testing.B) {
	benchDecode(b, genBody(), Options{Format: NDJSON})
}
