package agg

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestPercentileBatchesExactAndSketched feeds percentile(x, p) batches of
// every-row-valid reals (the batch-at-a-time path) with NaNs among them,
// into groups of very different sizes, with the exact budget small enough
// that the large groups turn into sketches between batches: small groups
// answer exactly, sketched ones within 1%, and p0/p100 exactly.
func TestPercentileBatchesExactAndSketched(t *testing.T) {
	defer func(old int) { exactTotal = old }(exactTotal)
	exactTotal = 5000
	r := rand.New(rand.NewSource(11))
	const groups, batches, rows = 6, 12, 4096
	truth := make([][]float64, groups)
	for _, p := range []float64{0, 50, 99, 100} {
		st := newState(t, "percentile", []*vector.Vector{{Type: vector.Float}, cnst(vector.Float, p, 1)})
		st.Grow(groups)
		r.Seed(11)
		for g := range truth {
			truth[g] = truth[g][:0]
		}
		for range batches {
			v := &vector.Vector{Type: vector.Float, Len: rows, Floats: make([]float64, rows)}
			gs := make([]uint32, rows)
			for i := range rows {
				// Group 0 takes most rows, group 5 a handful.
				g := uint32(min(groups-1, int(r.ExpFloat64()*1.2)))
				x := math.Exp(r.NormFloat64() + 3)
				if r.Intn(50) == 0 {
					x = math.NaN()
				} else {
					truth[g] = append(truth[g], x)
				}
				v.Floats[i], gs[i] = x, g
			}
			st.Update([]*vector.Vector{v, cnst(vector.Float, p, rows)}, nil, gs)
		}
		got := st.Result(groups)[0]
		sketched := 0
		for g := range groups {
			vals := slices.Clone(truth[g])
			slices.Sort(vals)
			want := vals[nearestRank(p, uint64(len(vals)))-1]
			q := st.(*pctState[float64])
			exact := q.groups[g].sk == nil
			if !exact {
				sketched++
			}
			rel := math.Abs(got.Floats[g]-want) / want
			if (exact || p == 0 || p == 100) && got.Floats[g] != want {
				t.Errorf("p%v group %d (%d values, exact %v): %v, want %v", p, g, len(vals), exact, got.Floats[g], want)
			} else if rel > ddAlpha+1e-12 {
				t.Errorf("p%v group %d (%d values, sketched): %v, want %v (%.3f%%)", p, g, len(vals), got.Floats[g], want, 100*rel)
			}
		}
		if sketched == 0 || sketched == groups {
			t.Fatalf("p%v: %d of %d groups sketched; the test needs both kinds", p, sketched, groups)
		}
	}
}
