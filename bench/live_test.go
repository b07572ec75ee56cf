package bench

import (
	"slices"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
)

// BenchmarkIngestLive is what compaction under sustained ingest costs.
// Four goroutines append real-shaped events in 10,000-event bodies, as
// over HTTP, in two modes that alternate in one run: "burst" never
// merges a full-size block during the window (a CompactAge of an hour,
// what every ingest shorter than the default 30 s gets), "live" merges
// them once they are a second old (what an ingest gets after its first
// 30 s). It reports both rates, their ratio and the blocks left at the
// end of the window: a live stream that never merged would keep one
// block per 65,536 events.
func BenchmarkIngestLive(b *testing.B) {
	for _, n := range querySizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			const per = 10_000
			g := newGen(5, n)
			var bodies [][]byte
			var size int64
			for done := 0; done < n; done += per {
				bodies = append(bodies, g.AppendNDJSON(nil, min(per, n-done)))
				size += int64(len(bodies[len(bodies)-1]))
			}
			modes := map[string]time.Duration{"burst": time.Hour, "live": time.Second}
			rates := map[string][]float64{}
			b.ResetTimer()
			for i := range 2 * b.N {
				mode := []string{"burst", "live"}[i%2]
				b.StopTimer()
				_, ds, done := openIngestDataset(b, store.Options{CompactAge: modes[mode]})
				b.StartTimer()
				began := time.Now()
				if err := parallel(len(bodies), 4, func(i int) error {
					return ingestBody(ds, bodies[i], min(per, n-i*per))
				}); err != nil {
					b.Fatal(err)
				}
				took := time.Since(began)
				b.StopTimer()
				rates[mode] = append(rates[mode], float64(n)/took.Seconds())
				b.Logf("%s: %.0f events/s, %d blocks at the end of the window", mode, rates[mode][len(rates[mode])-1], ds.Info().NumBlocks)
				done()
				b.StartTimer()
			}
			b.SetBytes(2 * size) // an op is one ingest in each mode
			b.ReportAllocs()
			burst, live := slices.Max(rates["burst"]), slices.Max(rates["live"])
			b.ReportMetric(burst, "burst-events/s")
			b.ReportMetric(live, "live-events/s")
			b.ReportMetric(live/burst, "live/burst")
		})
	}
}
