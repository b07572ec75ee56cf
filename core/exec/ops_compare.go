package exec

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// CompareDomain decides in which type two operands of a comparison are
// compared. APL coerces implicitly: a string compared with a number is
// read as a number (status >= 500 on a string field works), a string
// compared with a datetime is parsed as one.
func CompareDomain(l, r vector.Type) (vector.Type, bool) {
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

// cmpExpr is the evaluator of l op r; the domain they compare in comes
// from their types, so a plan node needs to carry only the operator.
func cmpExpr(node *plan.Expr, sp srcpos.Span, op string, l, r *Expr) *Expr {
	dom, _ := CompareDomain(l.Typ, r.Typ)
	k := &cmpOp{op: op, dom: dom, ints: vector.CmpInt64[op], floats: vector.CmpFloat64[op], strs: vector.CmpString[op]}
	e := &Expr{Typ: vector.Bool, Col: -1, Span: sp, Node: node}
	e.Eval = binaryEval(l, r, func(x *Ctx, bt *Batch, lv, rv *vector.Vector) (*vector.Vector, error) {
		return k.eval(lv, rv, bt.N, bt.Sel), nil
	})
	return e
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
