package agg

import (
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestMakeList(t *testing.T) {
	// make_list(uri) by id: values in row order, nulls dropped, empty
	// group gives an empty array.
	uri := col(vector.String, "/home", "/search", nil, "/profile", "/cart", "/home")
	res := run(t, "make_list", 3, []uint32{0, 1, 0, 0, 1, 0}, uri)
	if res[0].Type != vector.Dynamic {
		t.Fatalf("make_list returned %s", res[0].Type)
	}
	expect(t, "strings", res[0], []any{"/home", "/profile", "/home"}, []any{"/search", "/cart"}, []any{})

	d := dictCol("a", nil, "b", "a")
	expect(t, "dict", run(t, "make_list", 1, make([]uint32, 4), d)[0], []any{"a", "b", "a"})

	t0 := time.Unix(0, 5).UTC()
	expect(t, "datetime", run(t, "make_list", 1, []uint32{0}, col(vector.DateTime, t0))[0], []any{t0})
	expect(t, "timespan", run(t, "make_list", 1, []uint32{0}, col(vector.TimeSpan, time.Second))[0], []any{time.Second})
	expect(t, "bool", run(t, "make_list", 1, []uint32{0, 0}, col(vector.Bool, true, nil))[0], []any{true})
	// An array adds its elements, one level deep (it was added whole).
	expect(t, "dynamic", run(t, "make_list", 1, []uint32{0, 0}, col(vector.Dynamic, []any{int64(1)}, nil))[0], []any{int64(1)})
	arrs := col(vector.Dynamic, []any{"A1", "A2"}, []any{"A2", nil, []any{"n"}}, map[string]any{"k": "v"}, "s", []any{})
	expect(t, "arrays", run(t, "make_list", 1, make([]uint32, 5), arrs)[0],
		[]any{"A1", "A2", "A2", []any{"n"}, map[string]any{"k": "v"}, "s"})
	expect(t, "arrays if", run(t, "make_list_if", 1, make([]uint32, 5), arrs, col(vector.Bool, false, true, false, false, true))[0],
		[]any{"A2", []any{"n"}})
	expect(t, "const", run(t, "make_list", 1, []uint32{0, 0}, cnst(vector.Int, int64(4), 2))[0], []any{int64(4), int64(4)})

	// The size limit keeps the first values.
	x := col(vector.Int, int64(1), int64(2), int64(3))
	expect(t, "max", run(t, "make_list", 1, make([]uint32, 3), x, cnst(vector.Int, int64(2), 3))[0], []any{int64(1), int64(2)})
	if _, err := Lookup("make_list").New(&Context{}, []vector.Type{vector.Int, vector.Int}, []any{nil, int64(0)}); err == nil {
		t.Error("make_list accepted max 0")
	}

	// make_list_if(x, pred [, max]).
	p := col(vector.Bool, true, false, true)
	expect(t, "if", run(t, "make_list_if", 1, make([]uint32, 3), x, p)[0], []any{int64(1), int64(3)})
	expect(t, "if max", run(t, "make_list_if", 1, make([]uint32, 3), x, p, cnst(vector.Int, int64(1), 3))[0], []any{int64(1)})

	st := newState(t, "make_list", []*vector.Vector{x})
	st.Grow(1)
	st.Update([]*vector.Vector{x}, []int32{2, 0}, []uint32{0, 0})
	expect(t, "sel", st.Result(1)[0], []any{int64(3), int64(1)})
}

func TestMakeListMerge(t *testing.T) {
	fx := newFixture(400, 5)
	checkMerge(t, "make_list", fx.n, fx.groups, fx.s)
	checkMerge(t, "make_list", fx.n, fx.groups, fx.f)
	checkMerge(t, "make_list_if", fx.n, fx.groups, fx.dt, fx.b)
}
