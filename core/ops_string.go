package core

import (
	"regexp"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// stringOp compiles the string operators, including `matches regex`.
func (c *compiler) stringOp(b *parser.BinaryExpr, l, r *typed) (*typed, error) {
	if _, _, ok := exec.LookupStringOp(b.Op); !ok && b.Op != "matches regex" && b.Op != "!matches regex" {
		return nil, semErr(b, "unknown operator %s", b.Op)
	}
	if (b.Op == "matches regex" || b.Op == "!matches regex") && r.IsConst() {
		if _, err := regexp.Compile(exec.ValueString(r.ConstValue())); err != nil {
			return nil, semErr(b.R, "invalid regular expression: %v", err)
		}
	}
	e := nodeExpr(plan.KStr, vector.Bool, b.Op, b.Sp, l, r)
	if l.IsConst() && r.IsConst() {
		return fold(c.fc, e)
	}
	return e, nil
}
