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
	for k, g := range groups {
		r := physRow(sel, k)
		if !validAt(v.Valid, r) {
			continue
		}
		var x dynBest
		if m.Ord.Get(r) {
			f := m.Floats[r]
			if f != f {
				continue // dynKey skips NaN
			}
			x = dynBest{num: true, f: f}
			if m.Int.Get(r) {
				x.isInt, x.i = true, int64(f)
			}
		} else if s, ok := v.Dyns[r].(string); ok && !m.Real.Get(r) {
			x = dynBest{s: s} // not a number: dynKey keeps the string
		} else {
			var ok bool
			if x, ok = dynKey(v.Dyns[r]); !ok {
				continue
			}
		}
		if !has[g] || x.beats(best[g], isMax) {
			best[g], has[g] = x, true
		}
	}
}
