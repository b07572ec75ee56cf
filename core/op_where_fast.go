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
	col int
	// Exactly one kernel is set, picked for the operator at plan time.
	selInt   func(col []int64, k int64, sel, out []int32) []int32
	selFloat func(col []float64, k float64, sel, out []int32) []int32
	ki       int64
	kf       float64
	// op is the comparison with the column on the left, and isInt tells
	// which kernel is set: the fused conditional aggregations
	// (op_summarize_cond.go) run the predicate as a range of their own.
	op    string
	isInt bool
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
		f.selInt, f.ki, f.isInt = vector.SelConstInt64[op], r.cnst.Int(0), true
	case ct == vector.Int && r.typ == vector.Float:
		// An int column against a real constant compares as reals; keep
		// it simple and let the general path do it.
		return nil
	case ct == vector.Float && (r.typ == vector.Float || r.typ == vector.Int):
		v, _ := fn.DynFloat(r.constValue())
		f.selFloat, f.kf = vector.SelConstFloat64[op], v
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
	if f.selInt != nil {
		if v.Ints == nil {
			return nil, false, nil
		}
		return f.selInt(v.Ints[:b.N], f.ki, b.Sel, out), true, nil
	}
	if v.Floats == nil {
		return nil, false, nil
	}
	return f.selFloat(v.Floats[:b.N], f.kf, b.Sel, out), true, nil
}
