package core

import (
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// slice compiles x[lo:hi] over arrays and strings (Axiom's
// series_less(a, a[1:]) shifts a series this way): the elements (or
// characters) from lo up to, not including, hi. An omitted lo is 0, an
// omitted hi the length; a negative bound counts from the end; bounds past
// either end are clamped, so a slice never fails. A null x or bound, or a
// dynamic value that is neither an array nor a string, gives null.
func (c *compiler) slice(e *parser.SliceExpr) (*expr, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	if x.typ != vector.Dynamic && x.typ != vector.String && x.typ != vector.Null {
		return nil, semErr(e.X, "a slice [lo:hi] needs an array or a string, got %s", x.typ)
	}
	var bounds [2]*expr
	for i, b := range []parser.Expr{e.Lo, e.Hi} {
		if b == nil {
			continue
		}
		if bounds[i], err = c.compile(b); err != nil {
			return nil, err
		}
		if t := bounds[i].typ; t != vector.Int && t != vector.Dynamic && t != vector.Null {
			return nil, semErr(b, "a slice bound must be a long, got %s", t)
		}
	}
	t := x.typ
	if t == vector.Null {
		t = vector.Dynamic
	}
	out := sliceExpr(nodeOf(plan.KSlice, t, "", e.Sp, x, bounds[0], bounds[1]), e.Sp, t, x, bounds)
	if x.isConst() && (bounds[0] == nil || bounds[0].isConst()) && (bounds[1] == nil || bounds[1].isConst()) {
		return fold(c.x, out)
	}
	return out, nil
}

// sliceExpr is the evaluator of x[lo:hi] with result type t; an absent
// bound is nil.
func sliceExpr(node *plan.Expr, sp srcpos.Span, t vector.Type, x *expr, bounds [2]*expr) *expr {
	return &expr{typ: t, col: -1, span: sp, node: node, eval: func(xc *execCtx, b *batch) (*vector.Vector, error) {
		xv, err := x.run(xc, b)
		if err != nil {
			return nil, err
		}
		var bv [2]*vector.Vector
		for i, be := range bounds {
			if be != nil {
				if bv[i], err = be.run(xc, b); err != nil {
					return nil, err
				}
			}
		}
		res := vector.New(t, b.N)
		for r := 0; r < b.N; r++ {
			res.AppendValue(sliceValue(xv.Value(r), boundAt(bv[0], r), boundAt(bv[1], r)))
		}
		return res, nil
	}}
}

// sliceBound is one bound of a row: absent (use the end), null, or a value.
type sliceBound struct {
	set, null bool
	n         int64
}

func boundAt(v *vector.Vector, r int) sliceBound {
	if v == nil {
		return sliceBound{}
	}
	n, ok := fn.DynInt(v.Value(r))
	return sliceBound{set: true, null: !ok, n: n}
}

// sliceValue slices an array or a string; anything else is null.
func sliceValue(x any, lo, hi sliceBound) any {
	if lo.null || hi.null {
		return nil
	}
	switch v := x.(type) {
	case []any:
		i, j := sliceRange(len(v), lo, hi)
		return append([]any{}, v[i:j]...)
	case string:
		rs := []rune(v)
		i, j := sliceRange(len(rs), lo, hi)
		return string(rs[i:j])
	}
	return nil
}

// sliceRange resolves the bounds against length n into 0 <= i <= j <= n.
func sliceRange(n int, lo, hi sliceBound) (int, int) {
	at := func(b sliceBound, def int) int {
		if !b.set {
			return def
		}
		return fn.ClampIndex(b.n, n)
	}
	i, j := at(lo, 0), at(hi, n)
	return i, max(i, j)
}
