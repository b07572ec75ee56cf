package agg

import (
	"math"
	"testing"

	"github.com/aplite/aplite/vector"
)

func TestMakeSet(t *testing.T) {
	s := dictCol("b", "a", nil, "b", "c", "a")
	res := run(t, "make_set", 3, []uint32{0, 0, 0, 0, 1, 1}, s)
	expect(t, "dict", res[0], []any{"b", "a"}, []any{"c", "a"}, []any{})

	fl := col(vector.Float, 0.0, math.Copysign(0, -1), math.NaN(), math.NaN(), 1.5)
	got := values(run(t, "make_set", 1, make([]uint32, 5), fl)[0])[0].([]any)
	if len(got) != 3 || got[0] != 0.0 || !math.IsNaN(got[1].(float64)) || got[2] != 1.5 {
		t.Errorf("reals: %v, want [0 NaN 1.5]", got)
	}

	dyn := col(vector.Dynamic, map[string]any{"a": int64(1)}, map[string]any{"a": int64(1)}, []any{"x"}, []any{[]any{"x"}})
	expect(t, "dynamic", run(t, "make_set", 1, make([]uint32, 4), dyn)[0], []any{map[string]any{"a": int64(1)}, "x", []any{"x"}})

	// Kusto's "set from array column" example: the arrays' elements are
	// combined (they were kept as four distinct arrays).
	arr1 := col(vector.Dynamic, []any{"A1", "A2", "A3"}, []any{"A2", "C1"}, []any{"C2", "A3"}, []any{"C2", "A1"})
	expect(t, "array column", run(t, "make_set", 1, make([]uint32, 4), arr1)[0], []any{"A1", "A2", "A3", "C1", "C2"})
	expect(t, "array column if", run(t, "make_set_if", 1, make([]uint32, 4), arr1, col(vector.Bool, false, true, true, true))[0],
		[]any{"A2", "C1", "C2", "A3", "A1"})

	ints := col(vector.Int, int64(3), int64(1), int64(3), int64(2))
	expect(t, "max", run(t, "make_set", 1, make([]uint32, 4), ints, cnst(vector.Int, int64(2), 4))[0], []any{int64(3), int64(1)})

	p := col(vector.Bool, false, true, true, true)
	expect(t, "if", run(t, "make_set_if", 1, make([]uint32, 4), ints, p)[0], []any{int64(1), int64(3), int64(2)})
	expect(t, "bool", run(t, "make_set", 1, make([]uint32, 3), col(vector.Bool, true, true, false))[0], []any{true, false})
}

func TestMakeSetMerge(t *testing.T) {
	fx := newFixture(400, 5)
	checkMerge(t, "make_set", fx.n, fx.groups, fx.s)
	checkMerge(t, "make_set", fx.n, fx.groups, fx.i, cnst(vector.Int, int64(7), 400))
	checkMerge(t, "make_set_if", fx.n, fx.groups, fx.ts, fx.b)
}
