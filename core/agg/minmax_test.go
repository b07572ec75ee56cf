package agg

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestMinMaxNumbers(t *testing.T) {
	ints := col(vector.Int, int64(5), nil, int64(-2), int64(9), nil)
	groups := []uint32{0, 0, 0, 1, 2}
	expect(t, "min", run(t, "min", 4, groups, ints)[0], int64(-2), int64(9), nil, nil)
	expect(t, "max", run(t, "max", 4, groups, ints)[0], int64(5), int64(9), nil, nil)

	// NaN is skipped, unless it is all there is; infinities are values.
	fl := col(vector.Float, math.NaN(), 2.0, math.Inf(-1), math.NaN(), 7.0, math.Inf(1))
	fg := []uint32{0, 0, 1, 2, 3, 3}
	expect(t, "min real", run(t, "min", 4, fg, fl)[0], 2.0, math.Inf(-1), math.NaN(), 7.0)
	expect(t, "max real", run(t, "max", 4, fg, fl)[0], 2.0, math.Inf(-1), math.NaN(), math.Inf(1))

	// Datetimes and timespans keep their type (min(_time) by service).
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	dt := col(vector.DateTime, t0.Add(time.Hour), t0, nil)
	res := run(t, "min", 1, []uint32{0, 0, 0}, dt)
	if res[0].Type != vector.DateTime {
		t.Fatalf("min of datetime is %s", res[0].Type)
	}
	expect(t, "min datetime", res[0], t0)
	expect(t, "max timespan", run(t, "max", 1, []uint32{0, 0}, col(vector.TimeSpan, time.Second, time.Minute))[0], time.Minute)

	expect(t, "const", run(t, "max", 2, []uint32{0, 1}, cnst(vector.Int, int64(3), 2))[0], int64(3), int64(3))
}

func TestMinMaxStrings(t *testing.T) {
	plain := col(vector.String, "pear", "apple", nil, "zoo", "")
	groups := []uint32{0, 0, 0, 1, 1}
	expect(t, "min plain", run(t, "min", 2, groups, plain)[0], "apple", "")
	expect(t, "max plain", run(t, "max", 2, groups, plain)[0], "pear", "zoo")

	// Dictionary-encoded: ranked once, same answers as plain strings,
	// also across batches that share the dictionary.
	d := dictCol("pear", "apple", nil, "zoo", "", "apple", "kiwi")
	dg := []uint32{0, 0, 0, 1, 1, 2, 2}
	expect(t, "min dict", run(t, "min", 3, dg, d)[0], "apple", "", "apple")
	expect(t, "max dict", run(t, "max", 3, dg, d)[0], "pear", "zoo", "kiwi")

	st := newState(t, "min", []*vector.Vector{d})
	st.Grow(2)
	st.Update([]*vector.Vector{d}, []int32{0, 3}, []uint32{0, 1})
	st.Update([]*vector.Vector{d}, []int32{1, 6}, []uint32{1, 0})
	expect(t, "dict batches", st.Result(2)[0], "kiwi", "apple")

	// A dictionary much larger than the batch takes the row-by-row path.
	words := make([]any, 500)
	for i := range words {
		words[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	big := dictCol(words...)
	st = newState(t, "max", []*vector.Vector{big})
	st.Grow(1)
	st.Update([]*vector.Vector{big}, []int32{3, 7, 30}, []uint32{0, 0, 0})
	expect(t, "big dict", st.Result(1)[0], "ha")

	expect(t, "const dict", run(t, "min", 1, []uint32{0, 0}, cnst(vector.String, "k", 2))[0], "k")
}

func TestMinMaxif(t *testing.T) {
	x := col(vector.Int, int64(1), int64(50), int64(7), int64(3))
	p := col(vector.Bool, false, false, true, true)
	expect(t, "minif", run(t, "minif", 1, make([]uint32, 4), x, p)[0], int64(3))
	expect(t, "maxif", run(t, "maxif", 1, make([]uint32, 4), x, p)[0], int64(7))
}

func TestMinMaxMerge(t *testing.T) {
	fx := newFixture(600, 5)
	for _, name := range []string{"min", "max"} {
		checkMerge(t, name, fx.n, fx.groups, fx.f)
		checkMerge(t, name, fx.n, fx.groups, fx.s)
		checkMerge(t, name, fx.n, fx.groups, fx.dt)
	}
	nan := col(vector.Float, math.NaN(), math.NaN(), 1.0, math.NaN())
	checkMerge(t, "min", 2, []uint32{0, 0, 1, 1}, nan)
}
