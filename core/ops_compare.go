package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// comparison compiles ==, !=, <, <=, >, >=.
func (c *compiler) comparison(b *parser.BinaryExpr, l, r *typed) (*typed, error) {
	dom, ok := exec.CompareDomain(l.Typ, r.Typ)
	if c.strict && l.Typ != r.Typ && !(l.Typ.IsNumeric() && r.Typ.IsNumeric()) && l.Typ != vector.Null && r.Typ != vector.Null {
		return nil, semErr(b, "QueryFailed: set stricttypes forbids comparing %s with %s using %s", l.Typ, r.Typ, b.Op)
	}
	if !ok {
		return nil, semErr(b, "cannot compare %s with %s using %s", l.Typ, r.Typ, b.Op)
	}
	op := b.Op
	if dom == vector.Bool && op != "==" && op != "!=" {
		return nil, semErr(b, "operator %s is not defined for bool", op)
	}
	e := nodeExpr(plan.KCmp, vector.Bool, op, b.Sp, l, r)
	if l.IsConst() && r.IsConst() {
		return fold(c.fc, e)
	}
	return e, nil
}
