package core

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// logical compiles `and` / `or` with three-valued logic: false wins for
// and, true wins for or, otherwise a null operand makes the result null.
func (c *compiler) logical(b *parser.BinaryExpr, l, r *typed) (*typed, error) {
	for _, side := range []*typed{l, r} {
		if side.Typ != vector.Bool && side.Typ != vector.Null && side.Typ != vector.Dynamic {
			return nil, semErr(b, "operands of %s must be bool, got %s", b.Op, side.Typ)
		}
	}
	e := nodeExpr(plan.KLogic, vector.Bool, b.Op, b.Sp, l, r)
	if l.IsConst() && r.IsConst() {
		return fold(c.fc, e)
	}
	return e, nil
}

// unary compiles -x and +x.
func (c *compiler) unary(u *parser.UnaryExpr) (*typed, error) {
	x, err := c.compile(u.X)
	if err != nil {
		return nil, err
	}
	if u.Op == "+" {
		return x, nil
	}
	switch x.Typ {
	case vector.Int, vector.Float, vector.TimeSpan, vector.Dynamic, vector.Null:
	default:
		return nil, semErr(u, "unary minus is not defined for %s", x.Typ)
	}
	zero := constExpr(vector.Int, int64(0), u.Sp)
	if x.Typ == vector.TimeSpan {
		zero = constExpr(vector.TimeSpan, int64(0), u.Sp)
	}
	return c.arith(&parser.BinaryExpr{Sp: u.Sp, Op: "-", L: nil, R: u.X}, zero, x)
}
