package agg

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/vector"
)

// A field that arrives both as 200 and as "200" is a dynamic column. The
// ordered aggregations read it the way toreal reads a value: numbers and
// strings that parse as numbers are numbers. min, max, arg_min and arg_max
// also order the strings that are not numbers, byte-wise as Kusto orders
// strings, but a number always wins over them: a group's min or max is a
// string only when the group holds no number, so a stray "n/a" never hides
// the numeric extreme. percentile and histogram skip such strings.

// dynBest is one dynamic value reduced to what min and max compare.
type dynBest struct {
	num   bool    // a number; false: a non-numeric string
	isInt bool    // an exact integer, kept in i
	i     int64   // the integer when isInt
	f     float64 // the number
	s     string  // the string when !num
}

// dynKey reads x for ordering; false for nulls, NaN, bags, arrays and the
// rest, which min and max skip.
func dynKey(x any) (dynBest, bool) {
	switch v := x.(type) {
	case int64:
		return dynBest{num: true, isInt: true, i: v, f: float64(v)}, true
	case int:
		return dynBest{num: true, isInt: true, i: int64(v), f: float64(v)}, true
	case float64:
		return dynBest{num: true, f: v}, v == v
	case string:
		t := strings.TrimSpace(v)
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return dynBest{num: true, isInt: true, i: n, f: float64(n)}, true
		}
		if f, ok := fn.ParseFloat(t); ok {
			return dynBest{num: true, f: f}, f == f
		}
		return dynBest{s: v}, true
	}
	return dynBest{}, false
}

// beats reports whether a is strictly better than b for min (or max).
func (a dynBest) beats(b dynBest, isMax bool) bool {
	if a.num != b.num {
		return a.num
	}
	if !a.num {
		return (isMax && a.s > b.s) || (!isMax && a.s < b.s)
	}
	if a.isInt && b.isInt {
		return (isMax && a.i > b.i) || (!isMax && a.i < b.i)
	}
	return (isMax && a.f > b.f) || (!isMax && a.f < b.f)
}

// value is the result cell: the number (a long when exact) or the string.
func (a dynBest) value() any {
	switch {
	case !a.num:
		return a.s
	case a.isInt:
		return a.i
	}
	return a.f
}

// dynExtremes folds a dynamic vector into the per-group best values.
func dynExtremes(best []dynBest, has []bool, v *vector.Vector, sel []int32, groups []uint32, isMax bool) {
	if m := v.Mix(); m != nil {
		mixedExtremes(best, has, v, m, sel, groups, isMax)
		return
	}
	for k, g := range groups {
		r, ok := liveRow(v, sel, k)
		if !ok {
			continue
		}
		if x, ok := dynKey(v.Dyns[r]); ok && (!has[g] || x.beats(best[g], isMax)) {
			best[g], has[g] = x, true
		}
	}
}

func dynExtremeResult(best []dynBest, has []bool, n int) *vector.Vector {
	out := make([]any, n)
	for g := 0; g < n; g++ {
		if has[g] {
			out[g] = best[g].value()
		}
	}
	return dynResult(out, n)
}

// appendDynBests encodes the values as a kind (0 long, 1 real, 2 string)
// and the value.
func appendDynBests(b []byte, xs []dynBest) []byte {
	for _, x := range xs {
		switch {
		case !x.num:
			b = putStr(append(b, 2), x.s)
		case x.isInt:
			b = binary.AppendVarint(append(b, 0), x.i)
		default:
			b = putF64(append(b, 1), x.f)
		}
	}
	return b
}

func readDynBests(r *rd, n int) ([]dynBest, error) {
	out := make([]dynBest, n)
	for i := range out {
		if len(r.b) == 0 {
			return nil, errState
		}
		kind := r.b[0]
		r.b = r.b[1:]
		switch kind {
		case 0:
			v := r.varint()
			out[i] = dynBest{num: true, isInt: true, i: v, f: float64(v)}
		case 1:
			out[i] = dynBest{num: true, f: r.f64()}
		case 2:
			out[i] = dynBest{s: r.str()}
		default:
			return nil, fmt.Errorf("%w: dynamic kind %d", errState, kind)
		}
	}
	return out, nil
}

// dynToFloats reads a dynamic vector as reals for the aggregations that
// only take numbers (percentile, histogram): what is not a number, or a
// string that parses as one, becomes null.
func dynToFloats(v *vector.Vector, sel []int32) *vector.Vector {
	if r := v.Reals(); r != nil {
		return r
	}
	if v.Const {
		var c any
		if x, ok := dynFloat(v.Dyn(0)); ok && !v.IsNull(0) {
			c = x
		}
		return vector.NewConst(vector.Float, c, v.Len)
	}
	// Only the selected rows are converted (a narrow where before a
	// percentile leaves most rows dead); the others stay null.
	out := &vector.Vector{Type: vector.Float, Len: v.Len, Floats: make([]float64, v.Len), Valid: vector.NewBitmap(v.Len)}
	conv := func(r int) {
		if x, ok := dynFloat(v.Dyn(r)); ok && !v.IsNull(r) {
			out.Floats[r] = x
			out.Valid.Set(r)
		}
	}
	if sel == nil {
		for r := range v.Len {
			conv(r)
		}
		return out
	}
	for _, r := range sel {
		conv(int(r))
	}
	return out
}
