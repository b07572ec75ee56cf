package agg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestShiftedMomentsMatchWelford: the shifted sums of large batches give
// each group's variance within 1e-8 of a two-pass reference (or no
// further than Welford's update), for data far from zero with a small spread,
// several batches into the same groups, and NaN and ±Inf values.
func TestShiftedMomentsMatchWelford(t *testing.T) {
	const rows, groups = 8192, 7
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		name string
		gen  func(i int) float64
	}{
		{"far from zero", func(int) float64 { return 1e9 + rng.Float64() }},
		{"spread", func(int) float64 { return rng.NormFloat64() * 1e3 }},
		{"constant", func(int) float64 { return 42.5 }},
		{"nan and inf", func(i int) float64 {
			switch i {
			case 100:
				return math.NaN()
			case 2000:
				return math.Inf(1)
			}
			return rng.Float64()
		}},
	} {
		shifted, plain := &varState{sqrt: true}, &varState{sqrt: true}
		shifted.Grow(groups)
		plain.Grow(groups)
		all := make([][]float64, groups)
		for range 3 {
			vals := make([]float64, rows)
			gs := make([]uint32, rows)
			for i := range vals {
				vals[i], gs[i] = c.gen(i), uint32(rng.IntN(groups))
				all[gs[i]] = append(all[gs[i]], vals[i])
			}
			v := &vector.Vector{Type: vector.Float, Len: rows, Floats: vals}
			shifted.Update([]*vector.Vector{v}, nil, gs)
			welford(plain, v, vals, nil, gs)
		}
		for g := range groups {
			a, b := shifted.m2[g]/float64(shifted.n[g]-1), plain.m2[g]/float64(plain.n[g]-1)
			ref := twoPassVariance(all[g])
			// Within 1e-8 of the reference or no further than Welford: a
			// shift far from the mean would lose every digit of the
			// far-from-zero data to cancellation.
			ok := a == b || (math.IsNaN(a) && math.IsNaN(b)) ||
				math.Abs(a-ref) <= max(1e-8*math.Abs(ref), math.Abs(b-ref))
			if shifted.n[g] != plain.n[g] || !ok {
				t.Errorf("%s, group %d: shifted n=%d var=%v; Welford n=%d var=%v; two-pass %v", c.name, g,
					shifted.n[g], a, plain.n[g], b, ref)
			}
		}
	}
}

// twoPassVariance is the sample variance from the mean computed first.
func twoPassVariance(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	var m2 float64
	for _, x := range xs {
		m2 += (x - mean) * (x - mean)
	}
	return m2 / float64(len(xs)-1)
}
