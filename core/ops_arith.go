package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
)

// arith compiles + - * / %, picking the operator's kernels here, once,
// so evaluation never looks at the operator's text.
func (c *compiler) arith(b *parser.BinaryExpr, l, r *typed) (*typed, error) {
	res, _, ok := exec.ArithType(b.Op, l.Typ, r.Typ)
	if !ok {
		return nil, semErr(b, "operator %s is not defined for %s and %s", b.Op, l.Typ, r.Typ)
	}
	e := nodeExpr(plan.KArith, res, b.Op, b.Sp, l, r)
	if l.IsConst() && r.IsConst() {
		return fold(c.fc, e)
	}
	return e, nil
}
