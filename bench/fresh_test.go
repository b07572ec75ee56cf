package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/db"
)

// BenchmarkFreshSearch is the peers harness's fresh-data case (issue 29)
// in process, where a profile can see it: 1M realistic events appended
// by four goroutines in 4 MB bodies with the server's default store
// options, then, 10 s after the last append, the rare word (either case)
// and an id lookup timed over the blocks the ingest sealed while the idle
// merge runs beside them; then again once compaction has settled. It
// reports each query's median (fresh-QUERY-ms, compacted-QUERY-ms), the
// process CPU per query and the blocks the fresh queries examined.
//
// APLITE_FRESH_PROFILE=prefix writes a CPU profile of each timed phase
// (prefix.fresh, prefix.compacted) with every goroutine in it, the merge's
// included, which `-cpuprofile` would mix with the ingest; the timed runs
// carry the label query=ID. APLITE_FRESH_RUNS sets the timed runs per
// query (default 21).
func BenchmarkFreshSearch(b *testing.B) {
	const events = 1_000_000
	runs := 21
	if n, err := strconv.Atoi(os.Getenv("APLITE_FRESH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	g := newGen(29, events)
	var bodies [][]byte
	for done := 0; done < events; done += events4MB {
		bodies = append(bodies, g.AppendNDJSON(nil, min(events4MB, events-done)))
	}
	qs := []benchQuery{
		{"has", `where message has "deadlock" | count`},
		{"has_cs", `where message has_cs "deadlock" | count`},
		{"id", `where id == "` + middleID(b, bodies[len(bodies)/2]) + `" | count`},
	}
	for b.Loop() {
		dir, cleanup := tempDir(b, "aplite-bench-fresh-")
		d, err := db.Open(filepath.Join(dir, "store"), db.Options{})
		if err != nil {
			cleanup()
			b.Fatal(err)
		}
		ds, err := d.Create(queryDataset)
		if err != nil {
			b.Fatal(err)
		}
		err = parallel(len(bodies), 4, func(i int) error {
			return ingestBody(ds, bodies[i], min(events4MB, events-i*events4MB))
		})
		if err != nil {
			b.Fatal(err)
		}
		stopped := time.Now()
		b.StopTimer()
		time.Sleep(time.Until(stopped.Add(10 * time.Second)))
		b.ReportMetric(float64(ds.Info().NumBlocks), "fresh-blocks")
		timeFresh(b, d, "fresh", qs, runs)
		b.ReportMetric(float64(ds.Info().NumBlocks), "fresh-blocks-after")
		settled(ds, events)
		timeFresh(b, d, "compacted", qs, runs)
		if err := d.Close(); err != nil {
			b.Error(err)
		}
		cleanup()
		b.StartTimer()
	}
}

// timeFresh runs each query once untimed (its columns enter the cache,
// as the harness's first run does), then runs times, and reports the
// median as phase-ID-ms and the process CPU per query.
func timeFresh(b *testing.B, d *db.DB, phase string, qs []benchQuery, runs int) {
	if prefix := os.Getenv("APLITE_FRESH_PROFILE"); prefix != "" {
		f, err := os.Create(prefix + "." + phase)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	ctx := context.Background()
	run := func(q benchQuery) *output.Output {
		out, err := d.Query(ctx, &core.Request{APL: q.apl(), DisableCache: true})
		if err != nil {
			b.Fatalf("%s %s: %v", phase, q.pipe, err)
		}
		return out
	}
	for _, q := range qs {
		first := run(q)
		lat := make([]time.Duration, 0, runs)
		cpu := processCPU()
		pprof.Do(ctx, pprof.Labels("query", q.id), func(context.Context) {
			for range runs {
				began := time.Now()
				run(q)
				lat = append(lat, time.Since(began))
			}
		})
		cpu = processCPU() - cpu
		slices.Sort(lat)
		med := float64(lat[len(lat)/2].Microseconds()) / 1e3
		b.ReportMetric(med, phase+"-"+q.id+"-ms")
		b.ReportMetric(cpu.Seconds()*1e3/float64(runs), phase+"-"+q.id+"-cpu-ms")
		b.Logf("%s %s: median %.2f ms, min %.2f, max %.2f, %d blocks, %d rows examined, load %s",
			phase, q.id, med, ms(lat[0]), ms(lat[len(lat)-1]), first.Stats.BlocksExamined, first.Stats.RowsExamined, loadAvg())
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// loadAvg is /proc/loadavg's first three figures, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) < 14 {
		return "?"
	}
	return string(b[:14])
}

// middleID is the id of the first event of body, the needle of the id
// lookup.
func middleID(b *testing.B, body []byte) string {
	var ev struct{ ID string }
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&ev); err != nil || ev.ID == "" {
		b.Fatalf("no id in the first event: %v", err)
	}
	return ev.ID
}
