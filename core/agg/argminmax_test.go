package agg

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestArgMax(t *testing.T) {
	// The docs' example: arg_max(req_duration_ms, uri) by method.
	dur := col(vector.Float, 120.0, 1200.0, nil, 2500.0, 40.0, math.NaN())
	uri := col(vector.String, "/a", "/home", "/x", "/api/products", "/b", "/nan")
	status := col(vector.Int, int64(200), int64(500), int64(404), nil, int64(200), int64(200))
	groups := []uint32{0, 0, 0, 1, 1, 1}
	res := run(t, "arg_max", 3, groups, dur, uri, status)
	if len(res) != 3 || res[1].Type != vector.String || res[2].Type != vector.Int {
		t.Fatalf("arg_max returned %d columns", len(res))
	}
	expect(t, "key", res[0], 1200.0, 2500.0, nil)
	expect(t, "uri", res[1], "/home", "/api/products", nil)
	// The carried value of the winning row may itself be null.
	expect(t, "status", res[2], int64(500), nil, nil)

	res = run(t, "arg_min", 3, groups, dur, uri)
	expect(t, "min key", res[0], 120.0, 40.0, nil)
	expect(t, "min uri", res[1], "/a", "/b", nil)
}

func TestArgMinTiesAndTypes(t *testing.T) {
	// Ties keep the first row.
	k := col(vector.Int, int64(3), int64(1), int64(1))
	v := dictCol("first", "second", "third")
	res := run(t, "arg_min", 1, []uint32{0, 0, 0}, k, v)
	expect(t, "tie", res[1], "second")

	// String and datetime keys; constant and dynamic carried values.
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	sk := col(vector.String, "b", "c", "a")
	dt := col(vector.DateTime, t0, t0.Add(time.Hour), t0.Add(2*time.Hour))
	dyn := col(vector.Dynamic, map[string]any{"x": int64(1)}, []any{"y"}, true)
	res = run(t, "arg_max", 1, []uint32{0, 0, 0}, sk, dt, cnst(vector.Int, int64(9), 3), dyn)
	expect(t, "string key", res[0], "c")
	expect(t, "datetime", res[1], t0.Add(time.Hour))
	expect(t, "const", res[2], int64(9))
	expect(t, "dynamic", res[3], []any{"y"})

	// With a selection.
	st := newState(t, "arg_max", []*vector.Vector{k, v})
	st.Grow(1)
	st.Update([]*vector.Vector{k, v}, []int32{1, 2}, []uint32{0, 0})
	expect(t, "sel", st.Result(1)[1], "second")

	if _, err := Lookup("arg_max").Result([]vector.Type{vector.Bool, vector.Int}); err == nil {
		t.Error("arg_max accepted a bool key")
	}
}

// TestArgMaxAllNullKey is Kusto's null handling example: a group whose key
// is null in every row still returns one of its rows (the first), where
// the carried columns were nulled.
func TestArgMaxAllNullKey(t *testing.T) {
	version := col(vector.Int, int64(1), nil, nil, nil, int64(1), int64(2))
	color := col(vector.String, "Red", "Green", "Yellow", "Green", "Brown", "Green")
	groups := []uint32{0, 0, 1, 1, 2, 2} // Apple, Banana, Pear
	for _, name := range []string{"arg_max", "arg_min"} {
		res := run(t, name, 3, groups, version, color)
		expect(t, name+" key", res[0], int64(1), nil, map[string]int64{"arg_max": 2, "arg_min": 1}[name])
		expect(t, name+" color", res[1], "Red", "Yellow", map[string]string{"arg_max": "Green", "arg_min": "Brown"}[name])
	}

	// A dynamic key that cannot be ordered (an array, a bag) counts as
	// null: the group keeps its first row, and a number later wins.
	dyn := col(vector.Dynamic, []any{int64(1)}, map[string]any{"a": int64(1)}, int64(5))
	res0 := run(t, "arg_min", 2, []uint32{0, 0, 1}, dyn, col(vector.String, "first", "second", "third"))
	expect(t, "unorderable key row", res0[1], "first", "third")

	// A NaN key counts as null; an all-null (untyped) key column too.
	res := run(t, "arg_max", 1, []uint32{0, 0}, col(vector.Float, math.NaN(), nil), col(vector.String, "nan", "null"))
	expect(t, "nan", res[1], "nan")
	nulls := vector.NewNulls(vector.Null, 2).Materialize()
	st := newState(t, "arg_max", []*vector.Vector{col(vector.Int, int64(1), int64(2)), color})
	st.Grow(1)
	st.Update([]*vector.Vector{nulls, col(vector.String, "first", "second")}, nil, []uint32{0, 0})
	expect(t, "untyped null key", st.Result(1)[1], "first")

	// Merging: a keyed row beats a kept null-key row whichever side has it.
	keyed := newState(t, "arg_max", []*vector.Vector{version, color})
	keyed.Grow(1)
	keyed.Update([]*vector.Vector{col(vector.Int, int64(3)), col(vector.String, "keyed")}, nil, []uint32{0})
	unkeyed := newState(t, "arg_max", []*vector.Vector{version, color})
	unkeyed.Grow(1)
	unkeyed.Update([]*vector.Vector{col(vector.Int, nil), col(vector.String, "unkeyed")}, nil, []uint32{0})
	unkeyed.Merge(keyed, []uint32{0})
	expect(t, "merge into unkeyed", unkeyed.Result(1)[1], "keyed")
	empty := newState(t, "arg_max", []*vector.Vector{version, color})
	empty.Grow(1)
	other := newState(t, "arg_max", []*vector.Vector{version, color})
	other.Grow(1)
	other.Update([]*vector.Vector{col(vector.Int, nil), col(vector.String, "only")}, nil, []uint32{0})
	empty.Merge(other, []uint32{0})
	res = empty.Result(1)
	expect(t, "merge null key", res[0], nil)
	expect(t, "merge null key row", res[1], "only")
}

func TestArgMinMaxMerge(t *testing.T) {
	fx := newFixture(800, 6)
	checkMerge(t, "arg_max", fx.n, fx.groups, fx.i, fx.s, fx.f, fx.b, fx.bag)
	checkMerge(t, "arg_min", fx.n, fx.groups, fx.s, fx.dt, fx.ts)
}
