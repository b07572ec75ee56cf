package core

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// logical compiles `and` / `or` with three-valued logic: false wins for
// and, true wins for or, otherwise a null operand makes the result null.
func (c *compiler) logical(b *parser.BinaryExpr, l, r *expr) (*expr, error) {
	for _, side := range []*expr{l, r} {
		if side.typ != vector.Bool && side.typ != vector.Null && side.typ != vector.Dynamic {
			return nil, semErr(b, "operands of %s must be bool, got %s", b.Op, side.typ)
		}
	}
	e := logicExpr(nodeOf(plan.KLogic, vector.Bool, b.Op, b.Sp, l, r), b.Sp, b.Op == "and", l, r)
	if l.isConst() && r.isConst() {
		return fold(c.x, e)
	}
	return e, nil
}

// logicExpr is the evaluator of l and r (isAnd) or l or r.
func logicExpr(node *plan.Expr, sp srcpos.Span, isAnd bool, l, r *expr) *expr {
	e := &expr{typ: vector.Bool, col: -1, span: sp, node: node}
	e.eval = func(x *execCtx, bt *batch) (*vector.Vector, error) {
		lv, err := l.run(x, bt)
		if err != nil {
			return nil, err
		}
		rv, err := r.run(x, bt)
		if err != nil {
			return nil, err
		}
		return logicVectors(isAnd, castVectorSel(lv, vector.Bool, bt.Sel), castVectorSel(rv, vector.Bool, bt.Sel), bt.N, bt.Sel), nil
	}
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

// unary compiles -x and +x.
func (c *compiler) unary(u *parser.UnaryExpr) (*expr, error) {
	x, err := c.compile(u.X)
	if err != nil {
		return nil, err
	}
	if u.Op == "+" {
		return x, nil
	}
	switch x.typ {
	case vector.Int, vector.Float, vector.TimeSpan, vector.Dynamic, vector.Null:
	default:
		return nil, semErr(u, "unary minus is not defined for %s", x.typ)
	}
	zero := constExpr(vector.Int, int64(0), u.Sp)
	if x.typ == vector.TimeSpan {
		zero = constExpr(vector.TimeSpan, int64(0), u.Sp)
	}
	return c.arith(&parser.BinaryExpr{Sp: u.Sp, Op: "-", L: nil, R: u.X}, zero, x)
}
