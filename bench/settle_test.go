package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/core/store"
)

// BenchmarkIngestSettle measures how fast a dataset reaches its compact
// size after ingest stops, with the server's default store options: four
// goroutines append 1M events in 1 MB bodies (background flushes, as over
// HTTP), then the bytes on disk per event are sampled every second for
// 15 s. It reports B/event right after the last append and at 10 s (the
// target: at most 30 with the old data shape), and the ingest rate.
func BenchmarkIngestSettle(b *testing.B) {
	const events, per = 1_000_000, 2_800 // ~1 MB bodies
	g := newGen(3, events)
	var bodies [][]byte
	for done := 0; done < events; done += per {
		bodies = append(bodies, g.AppendNDJSON(nil, min(per, events-done)))
	}
	for b.Loop() {
		dir, ds, done := openIngestDataset(b, store.Options{})
		began := time.Now()
		if err := parallel(len(bodies), 4, func(i int) error {
			return ingestBody(ds, bodies[i], min(per, events-i*per))
		}); err != nil {
			b.Fatal(err)
		}
		took := time.Since(began)
		b.StopTimer()
		stopped := time.Now()
		var at10 float64
		for s := 0; s <= 15; s++ {
			time.Sleep(time.Until(stopped.Add(time.Duration(s) * time.Second)))
			total, _ := dirBytes(b, dir)
			per := float64(total) / events
			if s == 0 {
				b.ReportMetric(per, "B/event@0s")
			}
			if s == 10 {
				at10 = per
			}
			b.Logf("%2d s after the last append: %.1f B/event on disk, %d blocks", s, per, ds.Info().NumBlocks)
		}
		b.ReportMetric(at10, "B/event@10s")
		b.ReportMetric(events/took.Seconds(), "events/s")
		done()
		b.StartTimer()
	}
	_ = fmt.Sprint
}
