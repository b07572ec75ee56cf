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
// decoding and merging partial states. Profile it to see where. Mode rest
// is node a alone plus the rest fragment to the ingest node, which holds
// 64Ki events more in its buffer: what -ingest costs a query.
func BenchmarkDistributedQueries(b *testing.B) {
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("APLITE_DIST_EVENTS")); err == nil && v > 0 {
		n = v
	}
	c := &testCluster{objs: store.NewMemObjects()}
	ing, err := store.Open(b.TempDir(), store.Options{Objects: c.objs, NoSync: true, CompactInterval: time.Hour, FlushInterval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := ing.Create("logs")
	if err != nil {
		b.Fatal(err)
	}
	g := gen.NewWith(1, gen.Options{Shape: gen.Real, EventsPerDay: n}) // as bench/ generates: real-shaped logs
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
	// The ingest node keeps restRows more in its buffer for mode rest.
	const restRows = 65_536
	rb := store.NewRowsBuilder()
	if _, err := ingest.Decode(g.AppendNDJSON(nil, restRows), ingest.Options{Format: ingest.NDJSON, Now: now}, rb); err != nil {
		b.Fatal(err)
	}
	if _, err := ds.Append(rb.Finish(now)); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ing.Close() })
	ingEngine := NewEngine(exec.StoreCatalog(ing))
	c.openNodes(b)
	for _, q := range referenceQueries {
		for _, mode := range []string{"one", "two", "rest"} {
			b.Run(q.id+"/"+mode, func(b *testing.B) {
				req := exec.Request{APL: q.apl, DisableCache: true}
				switch mode {
				case "two":
					req.Distribute = c.distribution(nil)
					req.Distribute.MinRows = 1
				case "rest": // node a alone, plus the ingest node's buffer
					req.Distribute = &exec.Distribution{Nodes: []string{"a"}, Self: "a", Ingest: "ing",
						Run: func(ctx context.Context, _ string, f *exec.Fragment) ([]byte, error) {
							return ingEngine.RunFragment(ctx, f)
						}}
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
