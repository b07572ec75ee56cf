package core

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
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
	e := cmpExpr(nodeOf(plan.KCmp, vector.Bool, op, b.Sp, l, r), b.Sp, op, l, r)
	if l.isConst() && r.isConst() {
		return fold(c.x, e)
	}
	return e, nil
}

// cmpExpr is the evaluator of l op r; the domain they compare in comes
// from their types, so a plan node needs to carry only the operator.
func cmpExpr(node *plan.Expr, sp srcpos.Span, op string, l, r *expr) *expr {
	dom, _ := compareDomain(l.typ, r.typ)
	k := &cmpOp{op: op, dom: dom, ints: vector.CmpInt64[op], floats: vector.CmpFloat64[op], strs: vector.CmpString[op]}
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
		return k.eval(lv, rv, bt.N, bt.Sel), nil
	}
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
