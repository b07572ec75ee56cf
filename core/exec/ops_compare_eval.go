package exec

import (
	"strings"

	"github.com/aplite/aplite/vector"
)

// cmpOp is one compiled comparison: the domain both operands are
// converted to and the generated kernels of the operator, picked when
// planning.
type cmpOp struct {
	op     string
	dom    vector.Type
	ints   vector.CmpKernels[int64]
	floats vector.CmpKernels[float64]
	strs   vector.CmpKernels[string]
}

// eval compares two vectors over the live rows sel of an n-row batch
// (every row when nil); the other rows of the result are unspecified.
func (c *cmpOp) eval(lv, rv *vector.Vector, n int, sel []int32) *vector.Vector {
	if c.dom == vector.Null {
		return vector.NewNulls(vector.Bool, n)
	}
	out := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n)}
	// A dictionary column against a constant: decide once per distinct value.
	if c.dom == vector.String && lv.Codes != nil && !lv.Const && rv.Const {
		cmpDictConst(c.op, lv, rv.Str(0), out, sel)
		applyCompareNulls(c.op, lv, rv, out, sel)
		return out
	}
	lv, rv = castVectorSel(lv, c.dom, sel), castVectorSel(rv, c.dom, sel)
	switch c.dom {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		runCmp(c.ints, lv.Ints, rv.Ints, lv.Const, rv.Const, sel, out.Bools)
	case vector.Float:
		runCmp(c.floats, lv.Floats, rv.Floats, lv.Const, rv.Const, sel, out.Bools)
	case vector.String:
		runCmp(c.strs, plainStrs(lv, sel), plainStrs(rv, sel), lv.Const, rv.Const, sel, out.Bools)
	case vector.Bool:
		eq := c.op == "=="
		forLive(n, sel, func(i int) { out.Bools[i] = (lv.Bool(i) == rv.Bool(i)) == eq })
	case vector.Dynamic:
		if c.mixed(lv, rv, false, n, sel, out.Bools) || c.mixed(rv, lv, true, n, sel, out.Bools) {
			break
		}
		forLive(n, sel, func(i int) {
			if lv.IsNull(i) || rv.IsNull(i) {
				return
			}
			r, ok := CompareAny(lv.Value(i), rv.Value(i))
			out.Bools[i] = ok && cmpResult(c.op, r)
			if !ok && c.op == "!=" {
				out.Bools[i] = true
			}
		})
	}
	applyCompareNulls(c.op, lv, rv, out, sel)
	return out
}

// forLive calls f for each live row: those in sel, or all n when nil.
func forLive(n int, sel []int32, f func(i int)) {
	if sel == nil {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	for _, i := range sel {
		f(int(i))
	}
}

// runCmp runs the kernel for the operands' shapes; a Const operand is the
// kernel's constant.
func runCmp[T int64 | float64 | string](k vector.CmpKernels[T], l, r []T, lc, rc bool, sel []int32, out []bool) {
	switch {
	case lc && rc:
		// Constants at run time only (literals fold when planning):
		// broadcast the right one, keeping the constant-vector ordering.
		full := make([]T, len(out))
		for i := range full {
			full[i] = r[0]
		}
		r = full
		fallthrough
	case lc:
		if sel != nil {
			k.CVSel(l[0], r, sel, out)
			return
		}
		k.CV(l[0], r, out)
	case rc:
		if sel != nil {
			k.VCSel(l, r[0], sel, out)
			return
		}
		k.VC(l, r[0], out)
	case sel != nil:
		k.VVSel(l, r, sel, out)
	default:
		k.VV(l, r, out)
	}
}

// plainStrs returns the strings of a string vector slot by slot for the
// kernels: a constant's one slot, a plain column's own slice, a
// dictionary column's live rows decoded into a new slice (the column may
// be shared, so it is not decoded in place).
func plainStrs(v *vector.Vector, sel []int32) []string {
	switch {
	case v.Const:
		return []string{v.Str(0)}
	case v.Codes == nil:
		return v.Strs
	}
	out := make([]string, v.Len)
	if sel == nil {
		for i, c := range v.Codes[:v.Len] {
			out[i] = v.Dict[c]
		}
		return out
	}
	for _, i := range sel {
		out[i] = v.Dict[v.Codes[i]]
	}
	return out
}

// applyCompareNulls sets the result validity over the live rows:
// ordered comparisons with a null are null; `==` with exactly one null is
// false and `!=` true, while null against null is null (apl.md §1.7).
func applyCompareNulls(op string, lv, rv *vector.Vector, out *vector.Vector, sel []int32) {
	if !lv.HasNulls() && !rv.HasNulls() {
		return
	}
	out.Valid = vector.NewBitmapSet(out.Len)
	forLive(out.Len, sel, func(i int) {
		ln, rn := lv.IsNull(i), rv.IsNull(i)
		if !ln && !rn {
			return
		}
		switch {
		case ln && rn:
			out.Valid.Clear(i)
		case op == "==":
			out.Bools[i] = false
		case op == "!=":
			out.Bools[i] = true
		default:
			out.Valid.Clear(i)
		}
	})
}

// cmpDictConst compares a dictionary-encoded column with a constant,
// evaluating the comparison once per dictionary entry.
func cmpDictConst(op string, lv *vector.Vector, k string, out *vector.Vector, sel []int32) {
	res := make([]bool, len(lv.Dict))
	for i, s := range lv.Dict {
		res[i] = cmpResult(op, strings.Compare(s, k))
	}
	if sel != nil {
		for _, i := range sel {
			out.Bools[i] = res[lv.Codes[i]]
		}
		return
	}
	for i, code := range lv.Codes[:out.Len] {
		out.Bools[i] = res[code]
	}
}
