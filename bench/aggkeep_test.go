package bench

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/aplite/aplite/core"
)

// aggQueries are issue 29's "aggregations that keep up": several
// aggregations (one a percentile) by two small keys, a distinct count of
// a unique string by a small key, and q6's percentile by datacenter.
var aggQueries = []benchQuery{
	{"agg2", `summarize avg(req_duration_ms), percentile(req_duration_ms, 99), min(req_duration_ms), max(req_duration_ms) by method, status`},
	{"dcount-id", `summarize dcount(id) by server_datacenter`},
	{"q6", `summarize percentile(req_duration_ms, 95) by server_datacenter`},
}

// BenchmarkAggKeepUp times aggQueries in process with warm columns, as
// BenchmarkQuery's inproc-colcache mode does; cpu-ms/op is the figure to
// compare on a shared machine.
func BenchmarkAggKeepUp(b *testing.B) {
	for _, n := range querySizes() {
		b.Run(sizeName(n), func(b *testing.B) {
			for _, q := range aggQueries {
				b.Run("inproc-colcache/"+q.id, func(b *testing.B) {
					benchInProcess(b, dataset(b, n), q, core.Request{APL: q.apl(), Workers: runtime.GOMAXPROCS(0)})
				})
			}
		})
	}
}

// checkAggKeep checks the answers of aggQueries. Every id is unique, so a
// datacenter's dcount(id) is its event count, within the sketch's error.
// agg2's extremes must be the data's, and each group's p99 must lie
// between its min and max.
func (e *expected) checkAggKeep(q benchQuery, t *table) error {
	switch q.id {
	case "dcount-id":
		return e.checkGroups(t, "server_datacenter", func(k any) (float64, bool) {
			dc, _ := k.(string)
			d, found := e.durByDC[dc]
			return float64(len(d)), found
		}, len(e.durByDC), 0.03)
	case "agg2":
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, ds := range e.durByDC {
			for _, d := range ds {
				lo, hi = min(lo, d), max(hi, d)
			}
		}
		p, mn, mx := t.col("percentile_req_duration_ms"), t.col("min_req_duration_ms"), t.col("max_req_duration_ms")
		if p < 0 || mn < 0 || mx < 0 || len(t.rows) < 2 {
			return fmt.Errorf("want percentile, min and max columns over several groups, got %d rows of %v", len(t.rows), t.names)
		}
		gotLo, gotHi := math.Inf(1), math.Inf(-1)
		for _, r := range t.rows {
			pv, _ := r[p].(float64)
			a, _ := r[mn].(float64)
			z, _ := r[mx].(float64)
			if pv < a || pv > z {
				return fmt.Errorf("group %v: p99 %v outside [%v, %v]", r, pv, a, z)
			}
			gotLo, gotHi = min(gotLo, a), max(gotHi, z)
		}
		if gotLo != lo || gotHi != hi {
			return fmt.Errorf("extremes [%v, %v], want [%v, %v]", gotLo, gotHi, lo, hi)
		}
		return nil
	}
	return fmt.Errorf("no check for %s", q.id)
}
