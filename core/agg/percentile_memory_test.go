package agg

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/aplite/aplite/vector"
)

// A percentile over 3M request durations in 5 groups, fed batch by batch
// as a scan worker feeds it, holds at most 1Mi values exactly (8 MB; it
// held all 3M when the bound was 4Mi) and still answers every
// group's p50, p95 and p99 within the sketch's 1% of the exact value.
func TestPercentileBoundsExactValues(t *testing.T) {
	const n, groups, batch = 3_000_000, 5, 8192
	r := rand.New(rand.NewSource(11))
	vals := make([]float64, n)
	gs := make([]uint32, n)
	exact := make([][]float64, groups)
	for i := range vals {
		// Lognormal around 100 ms, as request durations are.
		vals[i] = math.Round(math.Exp(r.NormFloat64()*0.8+4.6)*1000) / 1000
		gs[i] = uint32(r.Intn(groups))
		exact[gs[i]] = append(exact[gs[i]], vals[i])
	}
	ps := []float64{50, 95, 99}
	st := newState(t, "percentiles_array", []*vector.Vector{
		{Type: vector.Float}, cnst(vector.Int, int64(50), 1), cnst(vector.Int, int64(95), 1), cnst(vector.Int, int64(99), 1),
	}).(*pctState[float64])
	st.Grow(groups)
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		x := &vector.Vector{Type: vector.Float, Len: hi - lo, Floats: vals[lo:hi]}
		st.Update([]*vector.Vector{x}, nil, gs[lo:hi])
	}
	held := 0
	for _, g := range st.groups {
		held += g.n
	}
	// A group may pass the bound by the values it took before turning
	// into a sketch.
	if limit := 1<<20 + groups*exactQuantile; held > limit {
		t.Errorf("%d values held exactly (%d MiB), want at most %d", held, held*8>>20, limit)
	}
	res := values(st.Result(groups)[0])
	for g, got := range res {
		slices.Sort(exact[g])
		for i, p := range ps {
			want := exact[g][nearestRank(p, uint64(len(exact[g])))-1]
			if rel := math.Abs(got.([]any)[i].(float64)-want) / want; rel > ddAlpha+1e-12 {
				t.Errorf("group %d p%v = %v, exact %v (%.3f%% off)", g, p, got.([]any)[i], want, 100*rel)
			}
		}
	}
}
