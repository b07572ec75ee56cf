package core

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// in compiles in, !in, in~, !in~ and has_any / has_any_cs / has_all. A
// dynamic array in the list is flattened into it, nested arrays too (x in
// (dynamic([1, [2, 3]]), 4) tests 1, 2, 3 and 4). A list that is all
// constants is a set built once; one that reads columns (x in (tags),
// with tags an array per row) is tested row by row (ops_in_rows.go).
func (c *compiler) inList(e *parser.InExpr) (*typed, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	list := make([]*typed, len(e.List))
	allConst := true
	for i, le := range e.List {
		if list[i], err = c.compile(le); err != nil {
			return nil, err
		}
		allConst = allConst && list[i].IsConst()
	}
	out := nodeExpr(plan.KIn, vector.Bool, e.Op, e.Sp, append([]*typed{x}, list...)...)
	if x.IsConst() && allConst {
		return fold(c.fc, out)
	}
	return out, nil
}

// between compiles `x between (lo .. hi)` (inclusive) as lo <= x and x <= hi.
func (c *compiler) between(e *parser.BetweenExpr) (*typed, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	lo, err := c.compile(e.Lo)
	if err != nil {
		return nil, err
	}
	hi, err := c.compile(e.Hi)
	if err != nil {
		return nil, err
	}
	// `x between (dt .. timespan)` means [dt, dt+timespan].
	if x.Typ == vector.DateTime && lo.Typ == vector.DateTime && hi.Typ == vector.TimeSpan {
		hi, err = c.arith(&parser.BinaryExpr{Sp: e.Sp, Op: "+"}, lo, hi)
		if err != nil {
			return nil, err
		}
	}
	ge, err := c.comparison(&parser.BinaryExpr{Sp: e.Sp, Op: ">="}, x, lo)
	if err != nil {
		return nil, err
	}
	le, err := c.comparison(&parser.BinaryExpr{Sp: e.Sp, Op: "<="}, x, hi)
	if err != nil {
		return nil, err
	}
	both, err := c.logical(&parser.BinaryExpr{Sp: e.Sp, Op: "and"}, ge, le)
	if err != nil || !e.Not {
		return both, err
	}
	return c.not(e.Sp, both)
}

// not negates a bool expression (null stays null).
func (c *compiler) not(sp srcpos.Span, x *typed) (*typed, error) {
	e := nodeExpr(plan.KNot, vector.Bool, "", sp, x)
	if x.IsConst() {
		return fold(c.fc, e)
	}
	return e, nil
}
