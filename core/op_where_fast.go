package core

import (
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// fastFilter is a where predicate of the form `column op constant` over an
// integer-like or real column, evaluated by the generated selection
// kernels straight into the selection vector: no intermediate bool column
// and no allocation beyond the selection itself.
type fastFilter struct {
	col   int
	op    string
	isInt bool
	ki    int64
	kf    float64
}

// planFastFilter recognises `col op const` (either side) over an int,
// datetime, timespan or real column; nil when the predicate is anything else.
func planFastFilter(c *compiler, in schema, pred parser.Expr) *fastFilter {
	b, ok := pred.(*parser.BinaryExpr)
	if !ok {
		return nil
	}
	switch b.Op {
	case "==", "!=", "<", "<=", ">", ">=":
	default:
		return nil
	}
	l, err1 := c.compile(b.L)
	r, err2 := c.compile(b.R)
	if err1 != nil || err2 != nil {
		return nil
	}
	op := b.Op
	if l.isConst() && !r.isConst() {
		l, r, op = r, l, flipCmp(op)
	}
	if l.col < 0 || l.eval == nil || !r.isConst() || r.cnst.IsNull(0) {
		return nil
	}
	ct := in[l.col].Type
	f := &fastFilter{col: l.col, op: op}
	switch {
	case ct.IsInt64Backed() && r.typ == ct:
		f.isInt, f.ki = true, r.cnst.Int(0)
	case ct == vector.Int && r.typ == vector.Float:
		// An int column against a real constant compares as reals; keep
		// it simple and let the general path do it.
		return nil
	case ct == vector.Float && (r.typ == vector.Float || r.typ == vector.Int):
		v, _ := fn.DynFloat(r.constValue())
		f.kf = v
	default:
		return nil
	}
	return f
}

// apply narrows b's selection; ok is false when the column has nulls or is
// not in the planned representation, and the caller falls back.
func (f *fastFilter) apply(b *batch) (sel []int32, ok bool, err error) {
	v, err := b.col(f.col)
	if err != nil {
		return nil, false, err
	}
	if v.Const || v.Valid != nil {
		return nil, false, nil
	}
	n := b.N
	if b.Sel != nil {
		n = len(b.Sel)
	}
	out := make([]int32, 0, n)
	if f.isInt {
		if v.Ints == nil {
			return nil, false, nil
		}
		out, ok = vector.SelConstInt64(f.op, v.Ints[:b.N], f.ki, b.Sel, out)
		return out, ok, nil
	}
	if v.Floats == nil {
		return nil, false, nil
	}
	out, ok = vector.SelConstFloat64(f.op, v.Floats[:b.N], f.kf, b.Sel, out)
	return out, ok, nil
}
