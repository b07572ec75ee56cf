package bench

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/aplite/aplite/core"
)

// gapQueries are the peers' queries on which aplite trailed DuckDB at 10M
// events (bench/README.md): a sort | take over the whole dataset,
// conditional counts by a small key, and four aggregations of one column.
var gapQueries = []benchQuery{
	{"sort-take", `sort by req_duration_ms desc | take 10 | project _time, uri, user_agent, req_duration_ms`},
	{"countif", `summarize countif(status >= 500), countif(is_tls == false) by server_datacenter`},
	{"multi-agg", `summarize avg(req_duration_ms), max(req_duration_ms), sum(req_duration_ms), stdev(req_duration_ms) by method, server_datacenter`},
}

// BenchmarkQueryGaps times gapQueries in process with warm columns, as
// BenchmarkQuery's inproc-colcache mode does.
func BenchmarkQueryGaps(b *testing.B) {
	for _, n := range querySizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			for _, q := range gapQueries {
				b.Run("inproc-colcache/"+q.id, func(b *testing.B) {
					benchInProcess(b, dataset(b, n), q, core.Request{APL: q.apl(), Workers: runtime.GOMAXPROCS(0)})
				})
			}
		})
	}
}

// dcStats are the true per-datacenter counts behind the countif query.
type dcStats struct{ errors, plain int }

// durStats accumulate req_duration_ms of one (method, datacenter) group.
type durStats struct {
	n        int
	sum, sq  float64
	max      float64
	hasValue bool
}

func (d *durStats) add(x float64) {
	d.n++
	d.sum += x
	d.sq += x * x
	if !d.hasValue || x > d.max {
		d.max, d.hasValue = x, true
	}
}

// checkGap checks the answers of gapQueries.
func (e *expected) checkGap(q benchQuery, t *table) error {
	switch q.id {
	case "sort-take":
		var all []float64
		for _, d := range e.durByDC {
			all = append(all, d...)
		}
		return checkTopDurations(t, all)
	case "countif":
		dc, a, c := t.col("server_datacenter"), t.col("countif_"), t.col("countif_1")
		if dc < 0 || a < 0 || c < 0 || len(t.rows) != len(e.byDC) {
			return fmt.Errorf("want %d rows of server_datacenter, countif_, countif_1; got %d of %v", len(e.byDC), len(t.rows), t.names)
		}
		for _, r := range t.rows {
			k, _ := r[dc].(string)
			w, ok := e.byDC[k]
			if got1, got2 := r[a].(float64), r[c].(float64); !ok || got1 != float64(w.errors) || got2 != float64(w.plain) {
				return fmt.Errorf("%s: got %v, %v; want %d, %d", k, r[a], r[c], w.errors, w.plain)
			}
		}
		return nil
	case "multi-agg":
		m, dc := t.col("method"), t.col("server_datacenter")
		cols := []int{t.col("avg_req_duration_ms"), t.col("max_req_duration_ms"), t.col("sum_req_duration_ms"), t.col("stdev_req_duration_ms")}
		if m < 0 || dc < 0 || min(cols[0], cols[1], cols[2], cols[3]) < 0 || len(t.rows) != len(e.durByGroup) {
			return fmt.Errorf("want %d groups with four aggregations, got %d rows of %v", len(e.durByGroup), len(t.rows), t.names)
		}
		for _, r := range t.rows {
			mk, _ := r[m].(string)
			dk, _ := r[dc].(string)
			d, ok := e.durByGroup[[2]string{mk, dk}]
			if !ok {
				return fmt.Errorf("unexpected group %s, %s", mk, dk)
			}
			n := float64(d.n)
			want := []float64{d.sum / n, d.max, d.sum, math.Sqrt(max(0, (d.sq-d.sum*d.sum/n)/(n-1)))}
			for i, c := range cols {
				got, _ := r[c].(float64)
				if math.Abs(got-want[i]) > 1e-6*math.Abs(want[i]) {
					return fmt.Errorf("%s, %s: %s = %v, want %v", mk, dk, t.names[c], got, want[i])
				}
			}
		}
		return nil
	}
	return fmt.Errorf("no check for %s", q.id)
}

// addGap accounts for one event in byDC and durByGroup.
func (e *expected) addGap(method, dc string, status int64, plain bool, dur float64) {
	s := e.byDC[dc]
	if status >= 500 {
		s.errors++
	}
	if plain {
		s.plain++
	}
	e.byDC[dc] = s
	g := e.durByGroup[[2]string{method, dc}]
	if g == nil {
		g = &durStats{}
		e.durByGroup[[2]string{method, dc}] = g
	}
	g.add(dur)
}
