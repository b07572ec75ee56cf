package ingest

import (
	"testing"

	"github.com/aplite/aplite/bench/gen"
)

// realBody returns NDJSON of the generator's real shape (nested objects,
// arrays, sparse and renamed fields): what `aplite query -in` reads in
// place in the issue 16 benchmarks.
func realBody(n int) []byte {
	g := gen.NewWith(1, gen.Options{Shape: gen.Real, EventsPerDay: n})
	return g.AppendNDJSON(nil, n)
}

// keepOnly is the Keep of a query that reads the named fields.
func keepOnly(names ...string) func(string) bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return func(p string) bool { return m[p] }
}

// BenchmarkDecodeNDJSONKeepStatus is the decode of the in-place q1
// (where status == 500 | count): one kept field of about forty.
func BenchmarkDecodeNDJSONKeepStatus(b *testing.B) {
	benchDecode(b, realBody(20000), Options{Format: NDJSON, Keep: keepOnly("status")})
}

// BenchmarkDecodeNDJSONKeepURI is the decode of the in-place q5
// (summarize count() by uri): one kept string field.
func BenchmarkDecodeNDJSONKeepURI(b *testing.B) {
	benchDecode(b, realBody(20000), Options{Format: NDJSON, Keep: keepOnly("uri")})
}

// BenchmarkDecodeNDJSONReal is the full decode of the same body.
func BenchmarkDecodeNDJSONReal(b *testing.B) {
	benchDecode(b, realBody(20000), Options{Format: NDJSON})
}

// BenchmarkDecodeNDJSONKeepDCMethod is the decode of the in-place
// dc-method (summarize count(), avg(req_duration_ms) by
// server_datacenter, method): two kept strings and a kept float.
func BenchmarkDecodeNDJSONKeepDCMethod(b *testing.B) {
	benchDecode(b, realBody(20000), Options{Format: NDJSON, Keep: keepOnly("server_datacenter", "method", "req_duration_ms")})
}
