package exec

import (
	"strings"

	"github.com/aplite/aplite/vector"
)

// rowInEval tests x against a list that reads columns, row by row: each
// row's list is its items' values (arrays flattened), matched as the
// constant list would be. A null x matches nothing, so !in keeps it, as
// for constant lists.
func rowInEval(op string, x *Expr, list []*Expr) func(*Ctx, *Batch) (*vector.Vector, error) {
	neg := strings.HasPrefix(op, "!")
	fold := strings.HasSuffix(op, "~")
	return func(xc *Ctx, b *Batch) (*vector.Vector, error) {
		xv, err := x.Run(xc, b)
		if err != nil {
			return nil, err
		}
		cols := make([]*vector.Vector, len(list))
		for i, l := range list {
			if cols[i], err = l.Run(xc, b); err != nil {
				return nil, err
			}
		}
		out := &vector.Vector{Type: vector.Bool, Len: b.N, Bools: make([]bool, b.N)}
		var items []any
		set := newValueSet(nil, x.Typ, fold)
		// A list of constants too large for the planner to fold (x in
		// (range(1, 100000))) is the same on every row: one set a batch.
		once := true
		for _, c := range cols {
			once = once && c.Const
		}
		var has func(string) bool
		for r := 0; r < b.N; r++ {
			if !once || r == 0 {
				items = items[:0]
				for _, c := range cols {
					items = flattenInto(items, c.Value(r))
				}
				if isHasOp(op) {
					has = hasPred(op, items)
				} else {
					set.fill(items, x.Typ)
				}
			}
			v := xv.Value(r)
			switch {
			case isHasOp(op):
				out.Bools[r] = v != nil && has(ValueString(v))
			case v == nil:
				out.Bools[r] = neg
			default:
				out.Bools[r] = set.contains(v) != neg
			}
		}
		return out, nil
	}
}
