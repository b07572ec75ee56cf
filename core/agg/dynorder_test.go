package agg

import (
	"math"
	"testing"

	"github.com/aplite/aplite/vector"
)

// The same field as 200 and "200" is a dynamic column; the ordered
// aggregations read its numeric strings as numbers.
func TestDynamicMinMax(t *testing.T) {
	mixed := col(vector.Dynamic, int64(200), "404", nil, 2.5, "abc", "zzz", "b", "a", []any{int64(1)}, math.NaN())
	groups := []uint32{0, 0, 0, 1, 1, 2, 2, 2, 3, 3}
	// Group 1: a number beats a word either way; group 2: words only,
	// ordered byte-wise; group 3: an array and NaN are skipped.
	expect(t, "min", run(t, "min", 4, groups, mixed)[0], int64(200), 2.5, "a", nil)
	expect(t, "max", run(t, "max", 4, groups, mixed)[0], int64(404), 2.5, "zzz", nil)
	checkMerge(t, "max", 4, groups, mixed)

	pred := col(vector.Bool, true, false, true, true, true, true, true, false, true, true)
	expect(t, "minif", run(t, "minif", 4, groups, mixed, pred)[0], int64(200), 2.5, "b", nil)

	// " 7 " parses as toreal reads it; a real string stays a real.
	expect(t, "spaces", run(t, "max", 1, []uint32{0, 0}, col(vector.Dynamic, " 7 ", "6.5"))[0], int64(7))
	expect(t, "const", run(t, "min", 2, []uint32{0, 1}, cnst(vector.Dynamic, "12", 2))[0], int64(12), int64(12))
}

func TestDynamicArgMinMax(t *testing.T) {
	key := col(vector.Dynamic, "10", int64(9), "x", nil, int64(3))
	who := col(vector.String, "a", "b", "c", "d", "e")
	groups := []uint32{0, 0, 0, 1, 1}
	got := run(t, "arg_max", 2, groups, key, who)
	expect(t, "arg_max key", got[0], int64(10), int64(3))
	expect(t, "arg_max row", got[1], "a", "e")
	got = run(t, "arg_min", 2, groups, key, who)
	expect(t, "arg_min key", got[0], int64(9), int64(3))
	expect(t, "arg_min row", got[1], "b", "e")
	checkMerge(t, "arg_min", 2, groups, key, who)
}

func TestDynamicPercentileHistogram(t *testing.T) {
	mixed := col(vector.Dynamic, int64(1), "2", 3.0, "x", nil, "4")
	groups := []uint32{0, 0, 0, 0, 0, 0}
	res := run(t, "percentile", 1, groups, mixed, cnst(vector.Int, int64(50), 6))
	if res[0].Type != vector.Float {
		t.Fatalf("percentile of dynamic is %s, want real", res[0].Type)
	}
	expect(t, "p50", res[0], 2.0)
	expect(t, "p100", run(t, "percentile", 1, groups, mixed, cnst(vector.Int, int64(100), 6))[0], 4.0)
	h := run(t, "histogram", 1, groups, mixed, cnst(vector.Int, int64(1), 6))[0]
	bins := h.Dyn(0).([]any)
	if len(bins) != 1 || bins[0].(map[string]any)["count"] != int64(4) {
		t.Fatalf("histogram = %v, want the 4 numbers in one bin", bins)
	}
	// Only numbers: percentile still rejects what it cannot order.
	if _, err := Lookup("percentile").Result([]vector.Type{vector.Bool, vector.Int}); err == nil {
		t.Fatal("percentile of bool: no error")
	}
}

func TestDynamicAvgReadsNumericStrings(t *testing.T) {
	mixed := col(vector.Dynamic, int64(200), "404", "n/a")
	expect(t, "avg", run(t, "avg", 1, []uint32{0, 0, 0}, mixed)[0], 302.0)
	expect(t, "sum", run(t, "sum", 1, []uint32{0, 0, 0}, mixed)[0], 604.0)
}

// dynToFloats converts the selected rows only: a row outside the
// selection is never read, and reads as null.
func TestDynToFloatsSelection(t *testing.T) {
	v := vector.New(vector.Dynamic, 4)
	for _, x := range []any{int64(1), "2.5", "x", 4.0} {
		v.AppendValue(x)
	}
	got := dynToFloats(v, []int32{1, 2})
	for r, want := range []any{nil, 2.5, nil, nil} {
		if g := got.Value(r); g != want {
			t.Errorf("row %d: %v, want %v", r, g, want)
		}
	}
	all := dynToFloats(v, nil)
	for r, want := range []any{1.0, 2.5, nil, 4.0} {
		if g := all.Value(r); g != want {
			t.Errorf("all rows, row %d: %v, want %v", r, g, want)
		}
	}
}
