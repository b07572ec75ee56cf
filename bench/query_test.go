package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/render"
)

// benchQuery is one of the reference queries of the query-engine issue;
// APL prefixes the dataset.
type benchQuery struct {
	id, pipe string
}

func (q benchQuery) apl() string { return "['" + queryDataset + "'] | " + q.pipe }

var benchQueries = []benchQuery{
	{"q1", `where status == 500 | count`},
	{"q2", `summarize count() by status`},
	{"q3", `summarize avg(req_duration_ms) by method`},
	{"q4", `summarize count() by bin(_time, 1m)`},
	{"q5", `summarize count() by uri | top 10 by count_`},
	{"q6", `summarize percentile(req_duration_ms, 95) by server_datacenter`},
	{"q7", `where uri contains "api" | count`},
}

// topQueries read whole rows for a few winners: top N by a float after a
// filter, and sort | take N, each projecting wide string columns.
var topQueries = []benchQuery{
	{"t1", `where status >= 500 | top 10 by req_duration_ms desc | project _time, uri, user_agent, req_duration_ms`},
	{"t2", `sort by req_duration_ms desc | take 10 | project _time, id, uri, req_duration_ms`},
}

// windowQueries read a few minutes of a day: the rows are found by time
// inside each block, not filtered one by one.
var windowQueries = []benchQuery{
	{"w1", `where _time >= datetime(2024-03-01T12:00:00Z) and _time < datetime(2024-03-01T12:05:00Z) | count`},
}

// searchQueries look for a word of the free-text message: a rare one
// (about one event in 100,000) that the term filters find in a few
// granules, and a common one (2%) that is in every granule.
var searchQueries = []benchQuery{
	{"s1", `where message has "deadlock" | count`},
	{"s2", `where message has "timeout" | count`},
}

// BenchmarkSearch times searchQueries in process, and a full scan of the
// same predicate (no term filters: has applied to every message) for the
// ratio the issue asks for.
func BenchmarkSearch(b *testing.B) {
	// "or false" leaves the answer and the has kernel as they are, but the
	// term filters cannot decide an or with a test they do not know: a
	// full scan of every message.
	full := func(q benchQuery) benchQuery {
		return benchQuery{q.id, strings.Replace(q.pipe, " | count", " or false | count", 1)}
	}
	benchModes(b, searchQueries, map[string]func(*testing.B, *fixture, benchQuery){
		"inproc-colcache":   inProcess,
		"inproc-nocolcache": inProcessCold,
		"fullscan":          func(b *testing.B, f *fixture, q benchQuery) { inProcess(b, f, full(q)) },
	})
}

// BenchmarkTimeWindow times windowQueries in process.
func BenchmarkTimeWindow(b *testing.B) {
	benchModes(b, windowQueries, map[string]func(*testing.B, *fixture, benchQuery){"inproc-colcache": inProcess})
}

// BenchmarkTopRows times topQueries like BenchmarkQuery's inproc-colcache
// and http modes.
func BenchmarkTopRows(b *testing.B) {
	benchModes(b, topQueries, map[string]func(*testing.B, *fixture, benchQuery){
		"inproc-colcache":   inProcess,
		"inproc-nocolcache": inProcessCold,
		"http": func(b *testing.B, f *fixture, q benchQuery) {
			benchHTTP(b, f, q, "/v1/datasets/_apl?format=tabular&nocache=true")
		},
	})
}

// benchModes runs every query in every mode (sorted by name) on each of
// querySizes' fixtures: SIZE/MODE/QUERY.
func benchModes(b *testing.B, qs []benchQuery, modes map[string]func(*testing.B, *fixture, benchQuery)) {
	names := slices.Sorted(maps.Keys(modes))
	for _, n := range querySizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			for _, q := range qs {
				for _, m := range names {
					b.Run(m+"/"+q.id, func(b *testing.B) { modes[m](b, dataset(b, n), q) })
				}
			}
		})
	}
}

// inProcess times q on the engine alone with warm columns and every core.
func inProcess(b *testing.B, f *fixture, q benchQuery) {
	benchInProcess(b, f, q, core.Request{APL: q.apl(), Workers: runtime.GOMAXPROCS(0)})
}

// inProcessCold times q on the engine alone with every core and no
// decoded-column cache: every query decodes what it reads, as at 10M
// events, where the messages do not fit the cache.
func inProcessCold(b *testing.B, f *fixture, q benchQuery) {
	benchInProcess(b, f, q, core.Request{APL: q.apl(), Workers: runtime.GOMAXPROCS(0), NoColumnCache: true})
}

// querySizes are the dataset sizes benchmarked: 1M always, 10M when
// APLITE_BENCH_10M=1 (it takes minutes to build on two cores).
func querySizes() []int {
	if os.Getenv("APLITE_BENCH_10M") == "1" {
		return []int{1_000_000, 10_000_000}
	}
	return []int{1_000_000}
}

func sizeName(n int) string {
	if n%1_000_000 == 0 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	return fmt.Sprint(n)
}

// BenchmarkQuery runs each reference query in process (the engine alone)
// and over HTTP (request, engine, tabular JSON, response), after checking
// its answer against the one computed from the generated data. It reports
// the median latency (p50-ms; the targets are medians), process CPU per
// query (cpu-ms/op), rows scanned per second and allocations.
//
// Modes, since the engine caches decoded columns and whole results:
//   - inproc, http: caches off (DisableCache, ?nocache=true): every query
//     decodes its columns from the memory-mapped blocks and scans them.
//     The targets are checked on http.
//   - inproc-colcache: decoded-column cache on, result cache off (the
//     engine skips the result cache when Request.Workers is set): the
//     scan alone, as on a dashboard whose data keeps changing.
//   - http-cached: the default request; after the first, answers come
//     from the result cache, so this is the floor of the HTTP path.
func BenchmarkQuery(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	for _, n := range querySizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			for _, q := range benchQueries {
				b.Run("inproc/"+q.id, func(b *testing.B) {
					benchInProcess(b, dataset(b, n), q, core.Request{APL: q.apl(), DisableCache: true})
				})
				b.Run("inproc-colcache/"+q.id, func(b *testing.B) {
					benchInProcess(b, dataset(b, n), q, core.Request{APL: q.apl(), Workers: workers})
				})
				b.Run("http/"+q.id, func(b *testing.B) {
					benchHTTP(b, dataset(b, n), q, "/v1/datasets/_apl?format=tabular&nocache=true")
				})
				b.Run("http-cached/"+q.id, func(b *testing.B) {
					benchHTTP(b, dataset(b, n), q, "/v1/datasets/_apl?format=tabular")
				})
			}
		})
	}
}

func benchInProcess(b *testing.B, f *fixture, q benchQuery, req core.Request) {
	ctx := context.Background()
	run := func() (*output.Output, error) {
		r := req
		return f.db.Query(ctx, &r)
	}
	res, err := run()
	if err != nil {
		b.Fatalf("%s %s: %v", q.id, q.apl(), err)
	}
	tr := render.Tabular(res)
	t, err := tableOf(tr)
	if err == nil {
		err = f.want.check(q, t)
	}
	if err != nil {
		b.Fatalf("%s %s: wrong answer: %v", q.id, q.apl(), err)
	}
	if res, err = run(); err != nil || render.Tabular(res).Status.CacheStatus == output.CacheHit {
		b.Fatalf("%s: a repeated query came from the result cache (%v); this mode must compute", q.id, err)
	}
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 64)
	// The label lets `go tool pprof -tagfocus query=q5` keep only the
	// timed queries (and the scan goroutines they start) of a
	// -cpuprofile that also saw the dataset being built.
	cpu := processCPU()
	pprof.Do(ctx, pprof.Labels("query", q.id), func(context.Context) {
		for b.Loop() {
			began := time.Now()
			out, err := run()
			if err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(began))
			res = out
		}
	})
	reportLatency(b, lat, processCPU()-cpu, f.n)
	reportScan(b, res)
}

// reportScan adds what one run of the query read: the blocks it examined,
// the column pages it decoded and the rows it scanned, so a change in
// latency can be told apart from a change in work.
func reportScan(b *testing.B, res *output.Output) {
	st := res.Stats
	b.ReportMetric(float64(st.BlocksExamined), "blocks/op")
	b.ReportMetric(float64(st.PagesDecoded), "pages/op")
	b.ReportMetric(float64(st.RowsExamined), "rowsread/op")
}

func benchHTTP(b *testing.B, f *fixture, q benchQuery, path string) {
	body, _ := json.Marshal(map[string]string{"apl": q.apl()})
	code, resp, err := f.http.do("POST", path, "application/json", body)
	if err != nil || code != 200 {
		b.Fatalf("%s %s: HTTP %d %v: %s", q.id, q.apl(), code, err, resp)
	}
	var tr render.TabularResult
	err = json.Unmarshal(resp, &tr)
	var t *table
	if err == nil {
		t, err = tableOf(&tr)
	}
	if err == nil {
		err = f.want.check(q, t)
	}
	if err != nil {
		b.Fatalf("%s %s over HTTP: wrong answer: %v", q.id, q.apl(), err)
	}
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	f.http.prepare(req, "POST", path, "application/json", body)
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 64)
	cpu := processCPU()
	for b.Loop() {
		began := time.Now()
		if err := f.http.client.Do(req, res); err != nil {
			b.Fatal(err)
		}
		if res.StatusCode() != 200 {
			b.Fatalf("HTTP %d: %s", res.StatusCode(), res.Body())
		}
		lat = append(lat, time.Since(began))
	}
	reportLatency(b, lat, processCPU()-cpu, f.n)
}

// reportLatency adds the median (the targets are medians), the process
// CPU time per query (client included over HTTP; robust to other load on
// the machine, unlike wall time) and the rows scanned per second to the
// benchmark's line.
func reportLatency(b *testing.B, lat []time.Duration, cpu time.Duration, rows int) {
	if len(lat) == 0 {
		return
	}
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e6, "p50-ms")
	b.ReportMetric(cpu.Seconds()*1e3/float64(len(lat)), "cpu-ms/op")
	b.ReportMetric(float64(rows)*float64(len(lat))/total.Seconds(), "rows/s")
}

// tableOf reduces the first table of a tabular result to names and rows,
// with values as JSON decodes them (so in-process and HTTP answers compare
// alike).
func tableOf(tr *render.TabularResult) (*table, error) {
	if tr == nil || len(tr.Tables) == 0 {
		return nil, fmt.Errorf("result has no table")
	}
	raw, err := json.Marshal(tr.Tables[0])
	if err != nil {
		return nil, err
	}
	var tt struct {
		Fields  []struct{ Name string }
		Columns [][]any
	}
	if err := json.Unmarshal(raw, &tt); err != nil {
		return nil, err
	}
	t := &table{}
	for _, f := range tt.Fields {
		t.names = append(t.names, f.Name)
	}
	if len(tt.Columns) != len(t.names) {
		return nil, fmt.Errorf("%d columns for %d fields", len(tt.Columns), len(t.names))
	}
	rows := 0
	if len(tt.Columns) > 0 {
		rows = len(tt.Columns[0])
	}
	for i := range rows {
		r := make([]any, len(tt.Columns))
		for j, c := range tt.Columns {
			if len(c) != rows {
				return nil, fmt.Errorf("column %q has %d rows, want %d", t.names[j], len(c), rows)
			}
			r[j] = c[i]
		}
		t.rows = append(t.rows, r)
	}
	return t, nil
}
