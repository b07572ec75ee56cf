package exec

import (
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// sliceExpr is the evaluator of x[lo:hi] with result type t; an absent
// bound is nil.
func sliceExpr(node *plan.Expr, sp srcpos.Span, t vector.Type, x *Expr, bounds [2]*Expr) *Expr {
	return &Expr{Typ: t, Col: -1, Span: sp, Node: node, Eval: func(xc *Ctx, b *Batch) (*vector.Vector, error) {
		xv, err := x.Run(xc, b)
		if err != nil {
			return nil, err
		}
		var bv [2]*vector.Vector
		for i, be := range bounds {
			if be != nil {
				if bv[i], err = be.Run(xc, b); err != nil {
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
