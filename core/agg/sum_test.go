package agg

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestSum(t *testing.T) {
	// Longs stay long; nulls are skipped; a group with only nulls and a
	// group never seen are null.
	ints := col(vector.Int, int64(1), nil, int64(2), int64(40), nil)
	res := run(t, "sum", 4, []uint32{0, 0, 0, 1, 2}, ints)
	if res[0].Type != vector.Int {
		t.Fatalf("sum of long is %s", res[0].Type)
	}
	expect(t, "sum long", res[0], int64(3), int64(40), nil, nil)

	// Reals follow IEEE: NaN poisons, +Inf and -Inf give NaN, Inf stays.
	fl := col(vector.Float, 1.5, math.NaN(), math.Inf(1), math.Inf(-1), math.Inf(1), 2.0, 0.25)
	res = run(t, "sum", 4, []uint32{0, 1, 2, 2, 3, 3, 0}, fl)
	expect(t, "sum real", res[0], 1.75, math.NaN(), math.NaN(), math.Inf(1))

	// Timespans sum to a timespan.
	ts := col(vector.TimeSpan, time.Second, 2*time.Second, nil)
	res = run(t, "sum", 1, []uint32{0, 0, 0}, ts)
	if res[0].Type != vector.TimeSpan {
		t.Fatalf("sum of timespan is %s", res[0].Type)
	}
	expect(t, "sum timespan", res[0], 3*time.Second)

	// Dynamic numbers are summed as reals, other values skipped.
	dyn := col(vector.Dynamic, int64(2), 0.5, "x", nil, true)
	expect(t, "sum dynamic", run(t, "sum", 1, make([]uint32, 5), dyn)[0], 3.5)

	// A constant is added once per row.
	expect(t, "sum const", run(t, "sum", 2, []uint32{0, 1, 1}, cnst(vector.Int, int64(7), 3))[0], int64(7), int64(14))
	expect(t, "sum null const", run(t, "sum", 1, []uint32{0}, cnst(vector.Float, nil, 1))[0], nil)
	expect(t, "sum untyped null", run(t, "sum", 1, []uint32{0}, vector.NewNulls(vector.Null, 1))[0], nil)

	// Long overflow wraps, as APL's long does.
	big := col(vector.Int, int64(math.MaxInt64), int64(1))
	expect(t, "overflow", run(t, "sum", 1, []uint32{0, 0}, big)[0], int64(math.MinInt64))
}

func TestSumRunsAndSelection(t *testing.T) {
	// 4-row runs of one group take the pairwise path; mixed blocks the
	// plain one. Both must agree with a straightforward loop.
	vals := make([]any, 103)
	groups := make([]uint32, 103)
	want := make([]float64, 3)
	for k := range vals {
		x := float64(k%17) - 3.5
		vals[k] = x
		if k%40 < 20 {
			groups[k] = 0
		} else {
			groups[k] = uint32(1 + k%2)
		}
		want[groups[k]] += x
	}
	expect(t, "runs", run(t, "sum", 3, groups, col(vector.Float, vals...))[0], want[0], want[1], want[2])

	v := col(vector.Int, int64(1), int64(10), nil, int64(100))
	st := newState(t, "sum", []*vector.Vector{v})
	st.Grow(2)
	st.Update([]*vector.Vector{v}, []int32{1, 2, 3}, []uint32{0, 1, 0})
	expect(t, "sel", st.Result(2)[0], int64(110), nil)
}

func TestSumif(t *testing.T) {
	x := col(vector.Int, int64(1), int64(2), int64(4), nil, int64(8))
	p := col(vector.Bool, true, false, true, true, nil)
	expect(t, "sumif", run(t, "sumif", 2, []uint32{0, 0, 1, 1, 1}, x, p)[0], int64(1), int64(4))
	// No row passes: null, as for an all-null group.
	expect(t, "none", run(t, "sumif", 1, []uint32{0, 0}, col(vector.Int, int64(1), int64(2)), cnst(vector.Bool, false, 2))[0], nil)
}

func TestSumMerge(t *testing.T) {
	fx := newFixture(500, 6)
	checkMerge(t, "sum", fx.n, fx.groups, fx.i)
	checkMerge(t, "sum", fx.n, fx.groups, fx.ts)
	checkMerge(t, "sumif", fx.n, fx.groups, fx.f, fx.b)
}

func TestSumAvgUniformBatch(t *testing.T) {
	// A batch entirely in one group takes the multi-lane path.
	vals := make([]any, 203)
	var want int64
	for k := range vals {
		vals[k] = int64(k * k)
		want += int64(k * k)
	}
	groups := make([]uint32, len(vals))
	for k := range groups {
		groups[k] = 1
	}
	x := col(vector.Int, vals...)
	expect(t, "sum", run(t, "sum", 2, groups, x)[0], nil, want)
	expect(t, "avg", run(t, "avg", 2, groups, x)[0], nil, float64(want)/203)
	fl := col(vector.Float, vals...)
	expect(t, "sum real", run(t, "sum", 2, groups, fl)[0], nil, float64(want))
	expect(t, "avg real", run(t, "avg", 2, groups, fl)[0], nil, float64(want)/203)
}
