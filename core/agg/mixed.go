package agg

import "github.com/aplite/aplite/vector"

// Mixed columns (vector.Mixed): sum, avg, percentile and histogram read
// the column's Reals, a Float vector over the same payload, so they run
// the float kernels in row order and add exactly what the boxed path
// adds. min and max keep the dynamic order of dynorder.go and only skip
// unboxing the number rows.

// mixedExtremes is dynExtremes over a column with a mixed side: a number
// or numeric string becomes its dynBest from Floats, a string that is not
// a number its dynBest without parsing, the other rows are read boxed.
func mixedExtremes(best []dynBest, has []bool, v *vector.Vector, m *vector.Mixed, sel []int32, groups []uint32, isMax bool) {
	fs := m.Floats
	for k, g := range groups {
		r := physRow(sel, k)
		if m.Ord.Get(r) { // never a null row
			f := fs[r]
			if f != f {
				continue // dynKey skips NaN
			}
			// Against a number whose float is exact, beats compares the
			// floats (two longs within 2^53 compare as their floats).
			if b := &best[g]; has[g] && b.num && (!b.isInt || b.i <= maxExactInt && b.i >= -maxExactInt) {
				if isMax && f > b.f || !isMax && f < b.f {
					*b = dynBest{num: true, f: f, isInt: m.Int.Get(r), i: int64(f)}
				}
				continue
			}
			x := dynBest{num: true, f: f, isInt: m.Int.Get(r), i: int64(f)}
			if !has[g] || x.beats(best[g], isMax) {
				best[g], has[g] = x, true
			}
			continue
		}
		if !validAt(v.Valid, r) {
			continue
		}
		x, ok := dynBest{}, false
		if s, isStr := v.Dyns[r].(string); isStr && !m.Real.Get(r) {
			x, ok = dynBest{s: s}, true // not a number: dynKey keeps the string
		} else {
			x, ok = dynKey(v.Dyns[r])
		}
		if ok && (!has[g] || x.beats(best[g], isMax)) {
			best[g], has[g] = x, true
		}
	}
}

// maxExactInt bounds the longs a float64 holds exactly.
const maxExactInt = 1 << 53
