package agg

import (
	"testing"

	"github.com/aplite/aplite/vector"
)

func TestCount(t *testing.T) {
	// Three groups, group 2 never seen: count is 0, not null.
	res := run(t, "count", 3, []uint32{0, 1, 0, 0, 1})
	expect(t, "count", res[0], int64(3), int64(2), int64(0))

	// Runs of one group (the unrolled path) and a tail.
	groups := make([]uint32, 10)
	for i := 7; i < 10; i++ {
		groups[i] = 1
	}
	expect(t, "runs", run(t, "count", 2, groups)[0], int64(7), int64(3))

	// With a selection only the selected rows count.
	st := newState(t, "count", nil)
	st.Grow(2)
	st.Update(nil, []int32{1, 4}, []uint32{1, 1})
	expect(t, "sel", st.Result(2)[0], int64(0), int64(2))
}

func TestCountif(t *testing.T) {
	// Null predicates count as false, like where.
	pred := col(vector.Bool, true, false, nil, true, true)
	res := run(t, "countif", 2, []uint32{0, 0, 0, 1, 1}, pred)
	expect(t, "countif", res[0], int64(1), int64(2))

	// A constant predicate: true counts every row, false and null none.
	expect(t, "const true", run(t, "countif", 1, []uint32{0, 0, 0}, cnst(vector.Bool, true, 3))[0], int64(3))
	expect(t, "const false", run(t, "countif", 1, []uint32{0, 0}, cnst(vector.Bool, false, 2))[0], int64(0))
	expect(t, "const null", run(t, "countif", 1, []uint32{0, 0}, cnst(vector.Bool, nil, 2))[0], int64(0))

	// Dynamic predicates count only a true boolean.
	dyn := col(vector.Dynamic, true, "true", int64(1), false, nil)
	expect(t, "dynamic", run(t, "countif", 1, make([]uint32, 5), dyn)[0], int64(1))

	// With a selection.
	st := newState(t, "countif", []*vector.Vector{pred})
	st.Grow(1)
	st.Update([]*vector.Vector{pred}, []int32{2, 3}, []uint32{0, 0})
	expect(t, "sel", st.Result(1)[0], int64(1))

	if _, err := Lookup("countif").Result([]vector.Type{vector.String}); err == nil {
		t.Error("countif accepted a string predicate")
	}
}

func TestCountMerge(t *testing.T) {
	checkMerge(t, "count", 4, []uint32{0, 1, 2, 3, 3, 3, 2, 1, 0, 0, 0, 1})
	checkMerge(t, "countif", 2, []uint32{0, 1, 0, 1, 1, 0}, col(vector.Bool, true, true, nil, false, true, true))
}
