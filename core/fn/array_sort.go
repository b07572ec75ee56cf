package fn

// array_sort_asc and array_sort_desc.

import (
	"sort"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "array_sort_asc", Family: "array", MinArgs: 1, MaxArgs: 2,
		Result: Sig("array_sort_asc", vector.Dynamic, KDyn, KBool), Eval: evalArraySort(false),
		Doc: "The array sorted ascending; nulls last unless the second argument is false."})
	Register(&Func{Name: "array_sort_desc", Family: "array", MinArgs: 1, MaxArgs: 2,
		Result: Sig("array_sort_desc", vector.Dynamic, KDyn, KBool), Eval: evalArraySort(true),
		Doc: "The array sorted descending; nulls last unless the second argument is false."})
}

// evalArraySort returns the sort kernel. Mixed arrays sort by kind first
// (see arrRank); the sort is stable so equal elements keep their order.
// Per Axiom's page a non-array value gives an empty array; a null stays
// null.
func evalArraySort(desc bool) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			if args[0].IsNull(i) {
				return nil, false
			}
			arr, ok := arrAt(args[0], i)
			if !ok {
				return []any{}, true
			}
			nullsLast := true
			if len(args) > 1 && !args[1].IsNull(i) {
				if nullsLast, ok = ToBool(args[1], i); !ok {
					return nil, false
				}
			}
			return arrSorted(arr, desc, nullsLast), true
		}), nil
	}
}

func arrSorted(arr []any, desc, nullsLast bool) []any {
	vals := make([]any, 0, len(arr))
	nulls := 0
	for _, x := range arr {
		if x == nil {
			nulls++
			continue
		}
		vals = append(vals, x)
	}
	sort.SliceStable(vals, func(a, b int) bool {
		// Kinds stay in their order (numbers before strings) either way;
		// only values of one kind are reversed by desc, as KQL does.
		if ra, rb := arrRank(vals[a]), arrRank(vals[b]); ra != rb {
			return ra < rb
		}
		c := arrCompare(vals[a], vals[b])
		if desc {
			return c > 0
		}
		return c < 0
	})
	out := make([]any, 0, len(arr))
	if !nullsLast {
		out = append(out, make([]any, nulls)...)
	}
	out = append(out, vals...)
	if nullsLast {
		out = append(out, make([]any, nulls)...)
	}
	return out
}
