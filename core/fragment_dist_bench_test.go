package core

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// BenchmarkDistributedQueries runs the reference queries over generated
// HTTP logs (APLITE_DIST_EVENTS, default 1M) in one process, on node a
// alone and cut into fragments between nodes a and b (the fragment
// travels as JSON, its answer as bytes). Both nodes share the process, so
// the difference in CPU per query is what fragments cost: encoding,
// decoding and merging partial states. Profile it to see where.
func BenchmarkDistributedQueries(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("APLITE_DIST_EVENTS")); err == nil && v > 0 {
		n = v
	}
	c := &testCluster{objs: store.NewMemObjects()}
	ing, err := store.Open(b.TempDir(), store.Options{Objects: c.objs, NoSync: true, CompactInterval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := ing.Create("logs")
	if err != nil {
		b.Fatal(err)
	}
	g := gen.New(1).SetEventsPerDay(n)
	now := time.Now().UnixNano()
	for done := 0; done < n; done += 10_000 {
		rb := store.NewRowsBuilder()
		body := g.AppendNDJSON(nil, min(10_000, n-done))
		if _, err := ingest.Decode(body, ingest.Options{Format: ingest.NDJSON, Now: now}, rb); err != nil {
			b.Fatal(err)
		}
		if _, err := ds.Append(rb.Finish(now)); err != nil {
			b.Fatal(err)
		}
	}
	if err := ds.Flush(); err != nil {
		b.Fatal(err)
	}
	ing.Close()
	c.openNodes(b)
	for _, q := range referenceQueries {
		for _, mode := range []string{"one", "two"} {
			b.Run(q.id+"/"+mode, func(b *testing.B) {
				req := exec.Request{APL: q.apl, DisableCache: true}
				if mode == "two" {
					req.Distribute = c.distribution(nil)
					req.Distribute.MinRows = 1
				}
				b.ReportAllocs()
				for b.Loop() {
					r := req
					if _, err := c.a.Query(context.Background(), &r); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
