package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
)

// mixedDataset is the dataset of BenchmarkMixedField: 1M events of the
// real shape plus dur_mix, req_duration_ms as most shippers would send
// it, except that one event in a hundred carries a string instead: "n/a"
// or the number quoted.
const mixedDataset = "mixed-logs"

var (
	mixedOnce sync.Once
	mixedDB   *db.DB
	mixedDir  string
	mixedErr  error
)

// withDurMix appends dur_mix to every NDJSON line of body; line i of the
// whole stream is a string when i%100 == 99.
func withDurMix(body []byte, first int) []byte {
	const key = `"req_duration_ms":`
	out := make([]byte, 0, len(body)+len(body)/20)
	for i := first; len(body) > 0; i++ {
		end := bytes.IndexByte(body, '\n')
		line := body[:end]
		body = body[end+1:]
		at := bytes.Index(line, []byte(key)) + len(key)
		num := line[at : at+bytes.IndexAny(line[at:], ",}")]
		out = append(out, line[:len(line)-1]...)
		out = append(out, `,"dur_mix":`...)
		switch {
		case i%200 == 99:
			out = append(out, `"n/a"`...)
		case i%200 == 199:
			out = strconv.AppendQuote(out, string(num))
		default:
			out = append(out, num...)
		}
		out = append(out, "}\n"...)
	}
	return out
}

// mixedFixture builds the dataset once per process; TestMain removes it.
func mixedFixture(b *testing.B, n int) *db.DB {
	mixedOnce.Do(func() {
		if mixedDir, mixedErr = os.MkdirTemp("", "aplite-bench-mixed-"); mixedErr == nil {
			mixedDB, mixedErr = buildMixed(filepath.Join(mixedDir, "store"), n)
		}
	})
	if mixedErr != nil {
		b.Fatal(mixedErr)
	}
	return mixedDB
}

func buildMixed(dir string, n int) (*db.DB, error) {
	d, err := db.Open(dir, db.Options{})
	if err != nil {
		return nil, err
	}
	ds, err := d.Create(mixedDataset)
	if err != nil {
		return nil, err
	}
	g := gen.NewWith(1, gen.Options{Shape: gen.Real, EventsPerDay: n})
	for done := 0; done < n; done += fixtureChunk {
		k := min(fixtureChunk, n-done)
		body := withDurMix(g.AppendNDJSON(make([]byte, 0, k*900), k), done)
		now := time.Now().UnixNano()
		rb := store.NewRowsBuilder()
		res, err := ingest.Decode(body, ingest.Options{Format: ingest.NDJSON, Now: now}, rb)
		if err != nil {
			return nil, err
		}
		if res.Ingested != k {
			return nil, fmt.Errorf("decode took %d of %d events", res.Ingested, k)
		}
		if _, err := ds.Append(rb.Finish(now)); err != nil {
			return nil, err
		}
	}
	if err := ds.Flush(); err != nil {
		return nil, err
	}
	settled(ds, n)
	return d, nil
}

// BenchmarkMixedField is issue 11's measure of a field that mixes numbers
// and strings (dur_mix, 1% strings) against the same values in a field
// of numbers (req_duration_ms), query by query: the mixed field should
// run within 1.2x of the pure one. Columns stay in the column cache, as
// on a dashboard, so the figures are the kernels' and not the decode's.
func BenchmarkMixedField(b *testing.B) {
	const n = 1_000_000
	d := mixedFixture(b, n)
	queries := []struct{ name, pipe string }{
		{"aggs-by", "summarize avg(F), sum(F), min(F), max(F), percentile(F, 95) by status"},
		{"where-num", "where F > 100 | count"},
		{"where-str", `where F == "n/a" | count`},
		{"top10", "top 10 by F"},
		{"count-by", "summarize count() by F | count"},
	}
	for _, q := range queries {
		for _, field := range []string{"pure", "mixed"} {
			col := map[string]string{"pure": "req_duration_ms", "mixed": "dur_mix"}[field]
			apl := "['" + mixedDataset + "'] | " + replaceF(q.pipe, col)
			b.Run(q.name+"/"+field, func(b *testing.B) {
				req := core.Request{APL: apl, DisableCache: true, Workers: 2}
				run := func() {
					r := req
					if _, err := d.Query(context.Background(), &r); err != nil {
						b.Fatalf("%s: %v", apl, err)
					}
				}
				run() // fill the column cache
				b.SetBytes(8 * n)
				b.ReportAllocs()
				began, cpu := time.Now(), processCPU()
				// The label lets -tagfocus keep the timed queries apart
				// from the dataset's build.
				pprof.Do(context.Background(), pprof.Labels("query", q.name+"/"+field), func(context.Context) {
					for b.Loop() {
						run()
					}
				})
				b.ReportMetric(float64(n)*float64(b.N)/time.Since(began).Seconds(), "rows/s")
				// CPU time too: on a shared machine wall time includes
				// waiting for a core.
				b.ReportMetric((processCPU()-cpu).Seconds()*1e3/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// replaceF puts the field name in for F.
func replaceF(pipe, col string) string {
	return string(bytes.ReplaceAll([]byte(pipe), []byte("F"), []byte(col)))
}

// closeMixed removes the dataset of BenchmarkMixedField.
func closeMixed() {
	if mixedDir != "" {
		os.RemoveAll(mixedDir)
	}
}
