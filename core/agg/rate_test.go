package agg

import (
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func rateOf(t *testing.T, ctx *Context, n int, groups []uint32, x *vector.Vector) *vector.Vector {
	t.Helper()
	st, err := Lookup("rate").New(ctx, []vector.Type{x.Type}, []any{nil})
	if err != nil {
		t.Fatal(err)
	}
	st.Grow(n)
	st.Update([]*vector.Vector{x}, nil, groups)
	return st.Result(n)[0]
}

func TestRate(t *testing.T) {
	x := col(vector.Int, int64(600), int64(300), nil, int64(60))
	groups := []uint32{0, 0, 0, 1}

	// by bin(_time, 1m): per second of the bin.
	expect(t, "bin", rateOf(t, &Context{BinSize: int64(time.Minute)}, 3, groups, x), 15.0, 1.0, nil)

	// No bin: per second of the query range.
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx := &Context{Start: t0, End: t0.Add(5 * time.Minute)}
	expect(t, "range", rateOf(t, ctx, 2, groups, x), 3.0, 0.2)

	// Neither known: null rather than a made-up divisor.
	expect(t, "unbounded", rateOf(t, &Context{}, 1, []uint32{0}, col(vector.Float, 1.0)), nil)

	if _, err := Lookup("rate").Result([]vector.Type{vector.String}); err == nil {
		t.Error("rate accepted a string")
	}
}

func TestRateMerge(t *testing.T) {
	fx := newFixture(300, 3)
	checkMerge(t, "rate", fx.n, fx.groups, fx.i)
}
