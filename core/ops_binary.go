package core

import (
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// binary dispatches a BinaryExpr to the family of its operator.
func (c *compiler) binary(b *parser.BinaryExpr) (*typed, error) {
	l, err := c.compile(b.L)
	if err != nil {
		return nil, err
	}
	r, err := c.compile(b.R)
	if err != nil {
		return nil, err
	}
	switch b.Op {
	case "and", "or":
		return c.logical(b, l, r)
	case "==", "!=", "<", "<=", ">", ">=":
		return c.comparison(b, l, r)
	case "+", "-", "*", "/", "%":
		return c.arith(b, l, r)
	case ":":
		return c.stringOp(&parser.BinaryExpr{Sp: b.Sp, Op: "has", L: b.L, R: b.R}, l, r) // the plan says has
	}
	if strings.Contains(b.Op, "regex") || isStringOp(b.Op) {
		return c.stringOp(b, l, r)
	}
	return nil, semErr(b, "unknown operator %s", b.Op)
}

func isStringOp(op string) bool {
	_, _, ok := exec.LookupStringOp(op)
	return ok
}

// dynIndex compiles x[key] and x.name over dynamic values: a string key
// reads a property, an integer an array element (negative from the end).
func (c *compiler) dynIndex(n parser.Node, x, key *typed) (*typed, error) {
	if x.Typ != vector.Dynamic && x.Typ != vector.Null {
		return nil, semErr(n, "cannot index into a value of type %s", x.Typ)
	}
	e := nodeExpr(plan.KIndex, vector.Dynamic, "", n.Span(), x, key)
	if x.IsConst() && key.IsConst() {
		return fold(c.fc, e)
	}
	return e, nil
}
