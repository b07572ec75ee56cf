package core

import (
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// slice compiles x[lo:hi] over arrays and strings (Axiom's
// series_less(a, a[1:]) shifts a series this way): the elements (or
// characters) from lo up to, not including, hi. An omitted lo is 0, an
// omitted hi the length; a negative bound counts from the end; bounds past
// either end are clamped, so a slice never fails. A null x or bound, or a
// dynamic value that is neither an array nor a string, gives null.
func (c *compiler) slice(e *parser.SliceExpr) (*typed, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	if x.Typ != vector.Dynamic && x.Typ != vector.String && x.Typ != vector.Null {
		return nil, semErr(e.X, "a slice [lo:hi] needs an array or a string, got %s", x.Typ)
	}
	var bounds [2]*typed
	for i, b := range []parser.Expr{e.Lo, e.Hi} {
		if b == nil {
			continue
		}
		if bounds[i], err = c.compile(b); err != nil {
			return nil, err
		}
		if t := bounds[i].Typ; t != vector.Int && t != vector.Dynamic && t != vector.Null {
			return nil, semErr(b, "a slice bound must be a long, got %s", t)
		}
	}
	t := x.Typ
	if t == vector.Null {
		t = vector.Dynamic
	}
	out := nodeExpr(plan.KSlice, t, "", e.Sp, x, bounds[0], bounds[1])
	if x.IsConst() && (bounds[0] == nil || bounds[0].IsConst()) && (bounds[1] == nil || bounds[1].IsConst()) {
		return fold(c.fc, out)
	}
	return out, nil
}
