package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// stringOp compiles the string operators, including `matches regex`.
func (c *compiler) stringOp(b *parser.BinaryExpr, l, r *exec.Expr) (*exec.Expr, error) {
	if _, _, ok := exec.LookupStringOp(b.Op); !ok && b.Op != "matches regex" && b.Op != "!matches regex" {
		return nil, semErr(b, "unknown operator %s", b.Op)
	}
	e, err := exec.StrExpr(exec.NodeOf(plan.KStr, vector.Bool, b.Op, b.Sp, l, r), b.Sp, b.Op, l, r)
	if err != nil {
		return nil, semErr(b.R, "invalid regular expression: %v", err)
	}
	if l.IsConst() && r.IsConst() {
		return fold(c.x, e)
	}
	return e, nil
}
