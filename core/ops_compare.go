package core

import (
	"cmp"
	"strings"

	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// compareDomain decides in which type two operands of a comparison are
// compared. APL coerces implicitly: a string compared with a number is
// read as a number (status >= 500 on a string field works), a string
// compared with a datetime is parsed as one.
func compareDomain(l, r vector.Type) (vector.Type, bool) {
	switch {
	case l == vector.Null || r == vector.Null:
		return vector.Null, true
	case l == vector.Dynamic || r == vector.Dynamic:
		return vector.Dynamic, true
	case l == r:
		return l, true
	case l.IsNumeric() && r.IsNumeric():
		return vector.Float, true
	case l == vector.String && r.IsNumeric(), r == vector.String && l.IsNumeric():
		return vector.Float, true
	case l == vector.String && (r == vector.DateTime || r == vector.TimeSpan):
		return r, true
	case r == vector.String && (l == vector.DateTime || l == vector.TimeSpan):
		return l, true
	case l == vector.Bool && r.IsNumeric(), r == vector.Bool && l.IsNumeric():
		return vector.Float, true
	}
	return vector.Null, false
}

// comparison compiles ==, !=, <, <=, >, >=.
func (c *compiler) comparison(b *parser.BinaryExpr, l, r *expr) (*expr, error) {
	dom, ok := compareDomain(l.typ, r.typ)
	if c.strict && l.typ != r.typ && !(l.typ.IsNumeric() && r.typ.IsNumeric()) && l.typ != vector.Null && r.typ != vector.Null {
		return nil, semErr(b, "QueryFailed: set stricttypes forbids comparing %s with %s using %s", l.typ, r.typ, b.Op)
	}
	if !ok {
		return nil, semErr(b, "cannot compare %s with %s using %s", l.typ, r.typ, b.Op)
	}
	op := b.Op
	if dom == vector.Bool && op != "==" && op != "!=" {
		return nil, semErr(b, "operator %s is not defined for bool", op)
	}
	e := &expr{typ: vector.Bool, col: -1, span: b.Sp}
	e.eval = func(x *execCtx, bt *batch) (*vector.Vector, error) {
		lv, err := l.run(x, bt)
		if err != nil {
			return nil, err
		}
		rv, err := r.run(x, bt)
		if err != nil {
			return nil, err
		}
		return compareVectors(op, dom, lv, rv, bt.N), nil
	}
	if l.isConst() && r.isConst() {
		return fold(c.x, e)
	}
	return e, nil
}

// compareVectors compares two vectors row by row in domain dom.
func compareVectors(op string, dom vector.Type, lv, rv *vector.Vector, n int) *vector.Vector {
	out := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n)}
	if dom == vector.Null {
		return vector.NewNulls(vector.Bool, n)
	}
	// A dictionary column against a constant: decide once per distinct value.
	if dom == vector.String && lv.Codes != nil && !lv.Const && rv.Const {
		cmpDictConst(op, lv, rv.Str(0), out)
	} else {
		lv, rv = castVector(lv, dom), castVector(rv, dom)
		switch dom {
		case vector.Int, vector.DateTime, vector.TimeSpan:
			cmpSlices(op, lv.Ints, rv.Ints, step(lv), step(rv), out.Bools)
		case vector.Float:
			cmpSlices(op, lv.Floats, rv.Floats, step(lv), step(rv), out.Bools)
		case vector.String:
			lv.Decode()
			rv = rv.Materialize()
			rv.Decode()
			cmpSlices(op, strSlice(lv), strSlice(rv), step(lv), step(rv), out.Bools)
		case vector.Bool:
			for i := 0; i < n; i++ {
				out.Bools[i] = (lv.Bool(i) == rv.Bool(i)) == (op == "==")
			}
		case vector.Dynamic:
			for i := 0; i < n; i++ {
				if lv.IsNull(i) || rv.IsNull(i) {
					continue
				}
				c, ok := compareAny(lv.Value(i), rv.Value(i))
				out.Bools[i] = ok && cmpResult(op, c)
				if !ok && op == "!=" {
					out.Bools[i] = true
				}
			}
		}
	}
	applyCompareNulls(op, lv, rv, out)
	return out
}

// strSlice returns the plain strings of a decoded string vector (a
// constant keeps its single slot).
func strSlice(v *vector.Vector) []string {
	if v.Codes != nil {
		v.Decode()
	}
	return v.Strs
}

// applyCompareNulls sets the result validity: ordered comparisons with a
// null are null; `==` with exactly one null is false and `!=` true, while
// null against null is null (apl.md §1.7).
func applyCompareNulls(op string, lv, rv *vector.Vector, out *vector.Vector) {
	if !lv.HasNulls() && !rv.HasNulls() {
		return
	}
	n := out.Len
	out.Valid = vector.NewBitmapSet(n)
	for i := 0; i < n; i++ {
		ln, rn := lv.IsNull(i), rv.IsNull(i)
		if !ln && !rn {
			continue
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
	}
}

// cmpDictConst compares a dictionary-encoded column with a constant,
// evaluating the comparison once per dictionary entry.
func cmpDictConst(op string, lv *vector.Vector, k string, out *vector.Vector) {
	res := make([]bool, len(lv.Dict))
	for i, s := range lv.Dict {
		res[i] = cmpResult(op, strings.Compare(s, k))
	}
	for i, code := range lv.Codes[:out.Len] {
		out.Bools[i] = res[code]
	}
}

// cmpSlices is the typed comparison kernel; ls/rs are 0 for a constant.
func cmpSlices[T cmp.Ordered](op string, l, r []T, ls, rs int, out []bool) {
	n := len(out)
	if ls == 1 && rs == 0 {
		k := r[0]
		l = l[:n]
		switch op {
		case "==":
			for i, v := range l {
				out[i] = v == k
			}
		case "!=":
			for i, v := range l {
				out[i] = v != k
			}
		case "<":
			for i, v := range l {
				out[i] = v < k
			}
		case "<=":
			for i, v := range l {
				out[i] = v <= k
			}
		case ">":
			for i, v := range l {
				out[i] = v > k
			}
		case ">=":
			for i, v := range l {
				out[i] = v >= k
			}
		}
		return
	}
	for i := 0; i < n; i++ {
		out[i] = cmpResult(op, cmp.Compare(l[i*ls], r[i*rs]))
	}
}

// cmpResult maps a three-way comparison to the operator's answer.
func cmpResult(op string, c int) bool {
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}
