package agg

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestVarianceStdev(t *testing.T) {
	// Sample variance of 2,4,4,4,5,5,7,9 is 32/7.
	x := col(vector.Int, int64(2), int64(4), int64(4), int64(4), nil, int64(5), int64(5), int64(7), int64(9))
	g := make([]uint32, 9)
	expect(t, "variance", run(t, "variance", 1, g, x)[0], 32.0/7)
	expect(t, "stdev", run(t, "stdev", 1, g, x)[0], math.Sqrt(32.0/7))

	// One value gives 0, none gives null, NaN and Inf give NaN.
	fl := col(vector.Float, 3.0, nil, 1.0, math.NaN(), math.Inf(1), 2.0)
	res := run(t, "variance", 5, []uint32{0, 1, 2, 2, 3, 3}, fl)
	expect(t, "edge", res[0], 0.0, nil, math.NaN(), math.NaN(), nil)

	// Welford keeps precision when the mean dwarfs the spread.
	big := col(vector.Float, 1e9+4, 1e9+7, 1e9+13, 1e9+16)
	expect(t, "big mean", run(t, "variance", 1, make([]uint32, 4), big)[0], 30.0)

	expect(t, "const", run(t, "stdev", 1, make([]uint32, 3), cnst(vector.Float, 5.0, 3))[0], 0.0)
	expect(t, "dynamic", run(t, "variance", 1, make([]uint32, 3), col(vector.Dynamic, int64(1), "x", 3.0))[0], 2.0)

	p := col(vector.Bool, true, false, true, true, false, true, true, true, true)
	expect(t, "varianceif", run(t, "varianceif", 1, g, x, p)[0], variance(2, 4, 4, 5, 5, 7, 9))
	expect(t, "stdevif", run(t, "stdevif", 1, g, x, p)[0], math.Sqrt(variance(2, 4, 4, 5, 5, 7, 9)))
}

// variance is the two-pass textbook formula, as a reference.
func variance(xs ...float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return s / float64(len(xs)-1)
}

func TestVarianceMerge(t *testing.T) {
	fx := newFixture(700, 4)
	checkMerge(t, "variance", fx.n, fx.groups, fx.f)
	checkMerge(t, "stdev", fx.n, fx.groups, fx.i)
	checkMerge(t, "stdevif", fx.n, fx.groups, fx.f, fx.b)
	// A group present in only one of the two states.
	checkMerge(t, "variance", 3, []uint32{0, 0, 0, 1, 2, 2, 2, 2, 2}, col(vector.Int, int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7), int64(8), int64(9)))
}

// stdev of span durations is a duration; variance is a real in ns².
func TestStdevTimespan(t *testing.T) {
	d := col(vector.TimeSpan, time.Second, 3*time.Second, nil, 2*time.Second)
	groups := []uint32{0, 0, 1, 1}
	res := run(t, "stdev", 2, groups, d)
	if res[0].Type != vector.TimeSpan {
		t.Fatalf("stdev of timespan is %s", res[0].Type)
	}
	expect(t, "stdev", res[0], time.Duration(1414213562), time.Duration(0))
	v := run(t, "variance", 2, groups, d)[0]
	if v.Type != vector.Float {
		t.Fatalf("variance of timespan is %s", v.Type)
	}
	expect(t, "variance", v, 2e18, 0.0)
	expect(t, "stdevif", run(t, "stdevif", 2, groups, d, col(vector.Bool, true, true, true, false))[0], time.Duration(1414213562), nil)
	checkMerge(t, "stdev", 2, groups, d)
	if _, err := Lookup("stdev").Result([]vector.Type{vector.DateTime}); err == nil {
		t.Fatal("stdev of datetime: no error")
	}
}
