package exec

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// logicExpr is the evaluator of l and r (isAnd) or l or r.
func logicExpr(node *plan.Expr, sp srcpos.Span, isAnd bool, l, r *Expr) *Expr {
	e := &Expr{Typ: vector.Bool, Col: -1, Span: sp, Node: node}
	e.Eval = binaryEval(l, r, func(x *Ctx, bt *Batch, lv, rv *vector.Vector) (*vector.Vector, error) {
		return logicVectors(isAnd, castVectorSel(lv, vector.Bool, bt.Sel), castVectorSel(rv, vector.Bool, bt.Sel), bt.N, bt.Sel), nil
	})
	return e
}

// logicVectors is the and/or kernel over the live rows sel of n (all
// when nil); the other rows of the result are unspecified.
func logicVectors(isAnd bool, lv, rv *vector.Vector, n int, sel []int32) *vector.Vector {
	out := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n)}
	if lv.Type == vector.Null {
		lv = vector.NewNulls(vector.Bool, n)
	}
	if rv.Type == vector.Null {
		rv = vector.NewNulls(vector.Bool, n)
	}
	ls, rs := step(lv), step(rv)
	if !lv.HasNulls() && !rv.HasNulls() {
		switch {
		case sel != nil:
			for _, i := range sel {
				if isAnd {
					out.Bools[i] = lv.Bools[int(i)*ls] && rv.Bools[int(i)*rs]
				} else {
					out.Bools[i] = lv.Bools[int(i)*ls] || rv.Bools[int(i)*rs]
				}
			}
		case isAnd:
			for i := range out.Bools {
				out.Bools[i] = lv.Bools[i*ls] && rv.Bools[i*rs]
			}
		default:
			for i := range out.Bools {
				out.Bools[i] = lv.Bools[i*ls] || rv.Bools[i*rs]
			}
		}
		return out
	}
	out.Valid = vector.NewBitmapSet(n)
	forLive(n, sel, func(i int) {
		ln, rn := lv.IsNull(i), rv.IsNull(i)
		lb, rb := !ln && lv.Bools[i*ls], !rn && rv.Bools[i*rs]
		switch {
		case isAnd && ((!ln && !lb) || (!rn && !rb)):
			out.Bools[i] = false
		case !isAnd && (lb || rb):
			out.Bools[i] = true
		case ln || rn:
			out.Valid.Clear(i)
		default:
			out.Bools[i] = (isAnd && lb && rb) || (!isAnd && (lb || rb))
		}
	})
	return out
}
