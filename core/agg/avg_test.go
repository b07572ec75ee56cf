package agg

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestAvg(t *testing.T) {
	// Longs average to real; nulls do not count in the denominator.
	ints := col(vector.Int, int64(1), nil, int64(2), int64(5), nil)
	res := run(t, "avg", 3, []uint32{0, 0, 0, 1, 2}, ints)
	if res[0].Type != vector.Float {
		t.Fatalf("avg of long is %s", res[0].Type)
	}
	expect(t, "avg long", res[0], 1.5, 5.0, nil)

	fl := col(vector.Float, 1.0, math.NaN(), math.Inf(1), 3.0)
	expect(t, "avg real", run(t, "avg", 3, []uint32{0, 1, 2, 0}, fl)[0], 2.0, math.NaN(), math.Inf(1))

	// Timespans and datetimes keep their type.
	ts := col(vector.TimeSpan, time.Second, 2*time.Second)
	expect(t, "avg timespan", run(t, "avg", 1, []uint32{0, 0}, ts)[0], 1500*time.Millisecond)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	dt := col(vector.DateTime, t0, t0.Add(time.Hour))
	expect(t, "avg datetime", run(t, "avg", 1, []uint32{0, 0}, dt)[0], t0.Add(30*time.Minute))

	expect(t, "avg const", run(t, "avg", 1, []uint32{0, 0}, cnst(vector.Float, 2.5, 2))[0], 2.5)
	expect(t, "avg dynamic", run(t, "avg", 1, []uint32{0, 0, 0}, col(vector.Dynamic, int64(1), "a", 2.0))[0], 1.5)

	v := col(vector.Float, 1.0, 100.0, 3.0)
	st := newState(t, "avg", []*vector.Vector{v})
	st.Grow(1)
	st.Update([]*vector.Vector{v}, []int32{0, 2}, []uint32{0, 0})
	expect(t, "sel", st.Result(1)[0], 2.0)
}

func TestAvgif(t *testing.T) {
	x := col(vector.Float, 1.0, 2.0, 10.0, nil)
	p := col(vector.Bool, true, false, true, true)
	expect(t, "avgif", run(t, "avgif", 1, []uint32{0, 0, 0, 0}, x, p)[0], 5.5)
}

func TestAvgMerge(t *testing.T) {
	fx := newFixture(500, 6)
	checkMerge(t, "avg", fx.n, fx.groups, fx.i)
	checkMerge(t, "avg", fx.n, fx.groups, fx.dt)
	checkMerge(t, "avgif", fx.n, fx.groups, fx.f, fx.b)
}

func TestAvgNegativeAndLarge(t *testing.T) {
	expect(t, "negative", run(t, "avg", 1, []uint32{0, 0}, col(vector.Int, int64(-1), int64(-2)))[0], -1.5)
	// Half a nanosecond rounds away from zero.
	expect(t, "neg timespan", run(t, "avg", 1, []uint32{0, 0}, col(vector.TimeSpan, time.Duration(-1), time.Duration(-2)))[0], time.Duration(-2))
	// Sums beyond int64 do not overflow.
	big := col(vector.Int, int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64-2))
	expect(t, "big", run(t, "avg", 1, []uint32{0, 0, 0}, big)[0], float64(math.MaxInt64))
}
