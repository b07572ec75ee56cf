package agg

import "github.com/aplite/aplite/vector"

// make_set(x [, max]) collects the distinct non-null values of each group
// into a dynamic array, in order of first appearance, of at most max
// elements (default 1048576). Reals compare by value with 0 = -0 and all
// NaN one element; dynamic values compare by content. make_set_if(x,
// pred [, max]) uses only rows where pred is true.

func init() {
	Register(makeSetSpec)
	Register(withIf(makeSetSpec, "make_set_if", "makesetif", 1,
		"Collects the distinct values of the rows for which the predicate is true into a dynamic array."))
}

var makeSetSpec = &Spec{
	Name:      "make_set",
	APIName:   "makeset",
	MinArgs:   1,
	MaxArgs:   2,
	ConstArgs: []int{1},
	Result:    fixed(vector.Dynamic),
	New: func(_ *Context, args []vector.Type, consts []any) (State, error) {
		limit, err := listLimit(args, consts)
		if err != nil {
			return nil, err
		}
		return newCollect(args[0], limit, true), nil
	},
	Doc: "Collects the group's distinct non-null values into a dynamic array; an array value adds its elements (Axiom's page is silent; follows Kusto).",
}
