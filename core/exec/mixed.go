package exec

import (
	"cmp"
	"math"
	"strconv"
	"strings"

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

// MixedColumns switches the unboxed side on; the differential tests turn
// it off to compute the boxed path's answers.
var MixedColumns = true

// withMixed returns the Dynamic column v with its mixed side, or v itself
// when it is not worth one (no number row) or cannot have one (a long
// beyond 2^53).
func withMixed(v *vector.Vector) *vector.Vector {
	if !MixedColumns || v.Type != vector.Dynamic || v.Const || v.Len == 0 {
		return v
	}
	n := v.Len
	m := &vector.Mixed{Floats: make([]float64, n), Num: vector.NewBitmap(n), Real: vector.NewBitmap(n), Ord: vector.NewBitmap(n), Int: vector.NewBitmap(n)}
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
				if s, ok := x.(string); ok {
					mixedStrKey(m, i, s)
				}
			}
			continue
		}
		m.Num.Set(i)
		m.Real.Set(i)
		m.Ord.Set(i)
		nums++
	}
	for i, f := range m.Floats {
		if f != f && m.Real.Get(i) {
			m.NaN = true
			break
		}
	}
	if nums == 0 {
		return v
	}
	out := *v
	out.Mixed = m
	return &out
}

// mixedStrKey sets the Ord and Int bits of row i, a numeric string s, as
// agg's dynKey reads it: a long when strconv reads it as one (kept boxed
// beyond 2^53), else the real already in Floats.
func mixedStrKey(m *vector.Mixed, i int, s string) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	switch {
	case err != nil:
		m.Ord.Set(i)
	case n <= maxExactInt && n >= -maxExactInt:
		m.Ord.Set(i)
		m.Int.Set(i)
	}
}

// mixed compares a column with a mixed side against a constant (col
// on the left, or on the right when flip) into out and reports whether it
// did. It answers what compareAny answers, reading fewer rows boxed: a
// long or a real compares with a constant as reals when the constant
// reads as one (fn.DynFloat), and is not comparable otherwise; against a
// long or real constant, a numeric string, a bool or a timespan compares
// as the real the mixed side holds (fn.DynFloat reads them as
// agg.DynReal does) and another string is not comparable. The remaining
// rows go through compareAny boxed.
func (k *cmpOp) mixed(col, con *vector.Vector, flip bool, n int, sel []int32, out []bool) bool {
	op := k.op
	m := col.Mix()
	if m == nil || !con.Const || con.IsNull(0) {
		return false
	}
	c := con.Value(0)
	numConst := false
	switch t := c.(type) {
	case int64:
		if t > maxExactInt || t < -maxExactInt {
			return false
		}
		numConst = true
	case float64:
		numConst = true
	}
	if isComposite(c) {
		return false
	}
	cf, okc := fn.DynFloat(c)
	// fast holds the rows compared as reals: numbers, and every row that
	// reads as a real when the constant is a number.
	fast := m.Num
	if numConst {
		fast = m.Real
	}
	if !okc {
		fast = nil
	}
	mc := mixedCmp{fs: m.Floats, cf: cf, fast: fast, want: threeWay(op, flip)}
	mc.other = func(i int) bool {
		if col.IsNull(i) {
			return false // applyCompareNulls decides
		}
		x := col.Dyns[i]
		if _, isStr := x.(string); m.Num.Get(i) || isStr && numConst {
			return op == "!=" // a number and what does not read as one
		}
		a, b := x, c
		if flip {
			a, b = b, a
		}
		r, ok := CompareAny(a, b)
		return ok && cmpResult(op, r) || !ok && op == "!="
	}
	if fast != nil && !m.NaN && cf == cf {
		// Without NaNs the generated kernel's answer is cmp.Compare's:
		// run it over every row, then redo the rows it must not answer.
		k.kernel(m.Floats[:n], cf, flip, sel, out)
		mc.redo(n, sel, out)
		return true
	}
	mc.fill(n, sel, out)
	return true
}

// threeWay returns op's answer for each three-way result r (at r+1) of
// comparing the column with the constant, the constant on the left when
// flip.
func threeWay(op string, flip bool) [3]bool {
	var want [3]bool
	for r := -1; r <= 1; r++ {
		if flip {
			want[r+1] = cmpResult(op, -r)
		} else {
			want[r+1] = cmpResult(op, r)
		}
	}
	return want
}

// mixedCmp is one comparison of a mixed column with a constant: the rows
// in fast compare their number in fs with cf, the others go to other.
type mixedCmp struct {
	fs    []float64
	cf    float64
	fast  vector.Bitmap
	want  [3]bool
	other func(i int) bool
}

// redo answers again, through other, the rows the float kernel answered
// but that are not in fast.
func (mc *mixedCmp) redo(n int, sel []int32, out []bool) {
	if sel != nil {
		for _, i := range sel {
			if !mc.fast.Get(int(i)) {
				out[i] = mc.other(int(i))
			}
		}
		return
	}
	for w, bits := range mc.fast[:(n+63)/64] {
		lo := w * 64
		hi := min(lo+64, n)
		if bits == fullWord(hi-lo) {
			continue
		}
		for i := lo; i < hi; i++ {
			if !mc.fast.Get(i) {
				out[i] = mc.other(i)
			}
		}
	}
}

// fill answers every row (of sel, or the first n): the rows in fast by
// cmp.Compare of their number with cf, the others through other.
func (mc *mixedCmp) fill(n int, sel []int32, out []bool) {
	fs, cf, fast, want := mc.fs, mc.cf, mc.fast, mc.want
	if sel != nil {
		for _, i := range sel {
			if fast != nil && fast.Get(int(i)) {
				out[i] = want[cmp.Compare(fs[i], cf)+1]
			} else {
				out[i] = mc.other(int(i))
			}
		}
		return
	}
	for lo := 0; lo < n; lo += 64 {
		hi := min(lo+64, n)
		if fast != nil && fast[lo/64] == fullWord(hi-lo) {
			for i, f := range fs[lo:hi] {
				out[lo+i] = want[cmp.Compare(f, cf)+1]
			}
			continue
		}
		for i := lo; i < hi; i++ {
			if fast != nil && fast.Get(i) {
				out[i] = want[cmp.Compare(fs[i], cf)+1]
			} else {
				out[i] = mc.other(i)
			}
		}
	}
}

// kernel runs the generated float comparison of the column's values fs
// with the constant c (c on the left when flip) over sel or every row.
func (k *cmpOp) kernel(fs []float64, c float64, flip bool, sel []int32, out []bool) {
	switch {
	case flip && sel != nil:
		k.floats.CVSel(c, fs, sel, out)
	case flip:
		k.floats.CV(c, fs, out)
	case sel != nil:
		k.floats.VCSel(fs, c, sel, out)
	default:
		k.floats.VC(fs, c, out)
	}
}

// fullWord is a bitmap word with its low k bits set.
func fullWord(k int) uint64 {
	if k == 64 {
		return math.MaxUint64
	}
	return 1<<k - 1
}

// mixedOrder orders non-null row a of v against non-null row c of w as
// orderAny does, from their mixed sides, and reports whether it could.
// Rows that read as numbers (the Real bit) come first, by their number;
// the others are left to orderAny.
func mixedOrder(v *vector.Vector, a int, w *vector.Vector, c int) (int, bool) {
	mv, mw := v.Mix(), w.Mix()
	if mv == nil || mw == nil {
		return 0, false
	}
	ra, rc := mv.Real.Get(a), mw.Real.Get(c)
	switch {
	case ra && rc:
		return cmp.Compare(mv.Floats[a], mw.Floats[c]), true
	case ra:
		return -1, true
	case rc:
		return 1, true
	}
	return 0, false
}

// appendMixedKey appends the text valueString gives a number row of a
// mixed column (a long's digits, a real's shortest form), without boxing.
// The key stays the text rather than the number's bits: rows of the same
// field read without a mixed side (a part with a long beyond 2^53, a
// vector an operator rebuilt) must land in the same groups.
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
