package core

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// BenchmarkPrepare times planning alone over the golden corpus: parse,
// resolve, fold, and make the run's operators, without running them.
// It reports queries/s; one op plans every query of the corpus once.
func BenchmarkPrepare(b *testing.B) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(b, 3, true)))
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.apl"))
	var reqs []*exec.Request
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		req := &exec.Request{APL: string(src), Now: fixtureNow}
		if p, _, _, err := e.prepare(context.Background(), req, nil, fixtureNow); err == nil {
			p.release()
			reqs = append(reqs, req) // the error corpus stops before it plans
		}
	}
	text := 0
	for _, req := range reqs {
		text += len(req.APL)
	}
	b.SetBytes(int64(text))
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		for _, req := range reqs {
			p, _, _, err := e.prepare(ctx, req, nil, fixtureNow)
			if err != nil {
				b.Fatal(err)
			}
			p.release()
		}
	}
	b.ReportMetric(float64(b.N*len(reqs))/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkQueryPrint is the smallest whole query, `print x = 1`, in
// process without the result cache: what planning and building cost a
// query that does no work.
func BenchmarkQueryPrint(b *testing.B) {
	e := NewEngine(nil)
	ctx := context.Background()
	const q = "print x = 1"
	b.SetBytes(int64(len(q)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Query(ctx, &exec.Request{APL: q, DisableCache: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
