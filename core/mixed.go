package core

import (
	"cmp"
	"math"
	"strconv"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/vector"
)

// A field stored as numbers in most events and as strings in a few (200
// and "200", 12.5 and "n/a") is a dynamic column, one boxed value a row.
// When such a column is read from storage, withMixed gives it an unboxed
// side (vector.Mixed) so the kernels that matter run over its number rows
// as over a float column and read only the other rows boxed, with the
// answers of the boxed path (DESIGN.md, "Mixed columns").

// maxExactInt bounds the longs a mixed side holds: up to 2^53 a float64
// is the long itself, so comparing Floats orders longs as the longs do.
const maxExactInt = 1 << 53

// mixedColumns switches the unboxed side on; the differential tests turn
// it off to compute the boxed path's answers.
var mixedColumns = true

// withMixed returns the Dynamic column v with its mixed side, or v itself
// when it is not worth one (no number row) or cannot have one (a long
// beyond 2^53).
func withMixed(v *vector.Vector) *vector.Vector {
	if !mixedColumns || v.Type != vector.Dynamic || v.Const || v.Len == 0 {
		return v
	}
	n := v.Len
	m := &vector.Mixed{Floats: make([]float64, n), Num: vector.NewBitmap(n), Int: vector.NewBitmap(n), Real: vector.NewBitmap(n)}
	nums := 0
	for i, x := range v.Dyns[:n] {
		if x == nil || v.IsNull(i) {
			continue
		}
		switch t := x.(type) {
		case int64:
			if t > maxExactInt || t < -maxExactInt {
				return v
			}
			m.Floats[i] = float64(t)
			m.Int.Set(i)
		case float64:
			m.Floats[i] = t
		default:
			if f, ok := agg.DynReal(x); ok {
				m.Floats[i] = f
				m.Real.Set(i)
			}
			continue
		}
		m.Num.Set(i)
		m.Real.Set(i)
		nums++
	}
	if nums == 0 {
		return v
	}
	out := *v
	out.Mixed = m
	return &out
}

// cmpMixed compares a column with a mixed side against a constant (col
// on the left, or on the right when flip) into out and reports whether it
// did. A number row compares as compareAny compares a long or a real with
// the constant: as reals when the constant reads as one (fn.DynFloat), as
// not comparable otherwise; the other rows go through compareAny boxed.
func cmpMixed(op string, col, con *vector.Vector, flip bool, n int, sel []int32, out []bool) bool {
	m := col.Mix()
	if m == nil || !con.Const || con.IsNull(0) {
		return false
	}
	c := con.Value(0)
	if ci, ok := c.(int64); isComposite(c) || ok && (ci > maxExactInt || ci < -maxExactInt) {
		return false
	}
	cf, okc := fn.DynFloat(c)
	var want [3]bool // the answer for a three-way result r, at r+1
	for r := -1; r <= 1; r++ {
		if flip {
			want[r+1] = cmpResult(op, -r)
		} else {
			want[r+1] = cmpResult(op, r)
		}
	}
	other := func(i int) bool {
		if col.IsNull(i) {
			return false // applyCompareNulls decides
		}
		if m.Num.Get(i) {
			return op == "!=" // okc is false: a number and a non-number
		}
		a, b := col.Dyns[i], c
		if flip {
			a, b = b, a
		}
		r, ok := compareAny(a, b)
		return ok && cmpResult(op, r) || !ok && op == "!="
	}
	fs := m.Floats
	if sel != nil {
		for _, i := range sel {
			if okc && m.Num.Get(int(i)) {
				out[i] = want[cmp.Compare(fs[i], cf)+1]
			} else {
				out[i] = other(int(i))
			}
		}
		return true
	}
	for lo := 0; lo < n; lo += 64 {
		hi := min(lo+64, n)
		if okc && m.Num[lo/64] == fullWord(hi-lo) {
			for i, f := range fs[lo:hi] {
				out[lo+i] = want[cmp.Compare(f, cf)+1]
			}
			continue
		}
		for i := lo; i < hi; i++ {
			if okc && m.Num.Get(i) {
				out[i] = want[cmp.Compare(fs[i], cf)+1]
			} else {
				out[i] = other(i)
			}
		}
	}
	return true
}

// fullWord is a bitmap word with its low k bits set.
func fullWord(k int) uint64 {
	if k == 64 {
		return math.MaxUint64
	}
	return 1<<k - 1
}

// mixedNum reports whether row i of v is a number on v's mixed side, and
// the number.
func mixedNum(v *vector.Vector, i int) (float64, bool) {
	if m := v.Mix(); m != nil && m.Num.Get(i) {
		return m.Floats[i], true
	}
	return 0, false
}

// appendMixedKey appends the text valueString gives a number row of a
// mixed column (a long's digits, a real's shortest form), without boxing.
func appendMixedKey(buf []byte, v *vector.Vector, i int) ([]byte, bool) {
	m := v.Mix()
	if m == nil || !m.Num.Get(i) {
		return buf, false
	}
	f := m.Floats[i]
	if m.Int.Get(i) {
		return strconv.AppendInt(buf, int64(f), 10), true
	}
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...), true
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...), true
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...), true
	}
	return strconv.AppendFloat(buf, f, 'g', -1, 64), true
}
