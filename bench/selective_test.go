package bench

import (
	"context"
	"testing"

	"github.com/aplite/aplite/core"
)

// BenchmarkSelectiveExtend is issue 11's measure of the batch contract:
// six arithmetic extends after a filter that keeps 1.5% of 1M rows
// (status == 500) against the filter alone. Expressions that computed
// every physical row made the first cost about what the extends cost over
// all rows.
func BenchmarkSelectiveExtend(b *testing.B) {
	f := dataset(b, querySizes()[0])
	for _, q := range []struct{ name, apl string }{
		{"filter", "['" + queryDataset + "'] | where status == 500 | summarize count()"},
		{"filter+6extends", "['" + queryDataset + "'] | where status == 500 | extend a = req_duration_ms * 2, b2 = req_duration_ms + 1, c = resp_body_size * 3, d = a + b2, e = c - 1, g = d * e | summarize sum(g)"},
		// The columns the extends read, without the extends: the floor
		// for filter+6extends, what decoding those columns costs.
		{"filter+same-columns", "['" + queryDataset + "'] | where status == 500 | summarize sum(req_duration_ms), sum(resp_body_size)"},
		// status == 200 keeps about 75% of the rows: too many for extend
		// to narrow the batch, so the expressions' own selection handling
		// is what skips the dead quarter.
		{"filter75%+6extends", "['" + queryDataset + "'] | where status == 200 | extend a = req_duration_ms * 2, b2 = req_duration_ms + 1, c = resp_body_size * 3, d = a + b2, e = c - 1, g = d * e | summarize sum(g)"},
		{"6extends-all-rows", "['" + queryDataset + "'] | extend a = req_duration_ms * 2, b2 = req_duration_ms + 1, c = resp_body_size * 3, d = a + b2, e = c - 1, g = d * e | summarize sum(g)"},
	} {
		b.Run(q.name, func(b *testing.B) {
			req := core.Request{APL: q.apl, DisableCache: true, Workers: 2}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				r := req
				if _, err := f.db.Query(context.Background(), &r); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time too: on a shared machine wall time includes
			// waiting for a core.
			b.ReportMetric((processCPU()-cpu).Seconds()*1e3/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(f.n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
