package agg

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func bin(from, to float64, count int64) map[string]any {
	return map[string]any{"from": from, "to": to, "count": count}
}

func TestHistogram(t *testing.T) {
	x := col(vector.Float, 0.0, 1.0, 2.5, 9.0, 10.0, nil, math.NaN(), math.Inf(1))
	res := run(t, "histogram", 1, make([]uint32, 8), x, cnst(vector.Int, int64(4), 8))
	expect(t, "bins", res[0], []any{bin(0, 2.5, 2), bin(2.5, 5, 1), bin(5, 7.5, 0), bin(7.5, 10, 2)})

	// One distinct value gives one bin; an empty group an empty array.
	ints := col(vector.Int, int64(7), int64(7))
	res = run(t, "histogram", 2, []uint32{0, 0}, ints, cnst(vector.Int, int64(10), 2))
	expect(t, "single", res[0], []any{bin(7, 7, 2)}, []any{})

	ts := col(vector.TimeSpan, time.Duration(0), 100*time.Nanosecond)
	res = run(t, "histogram", 1, []uint32{0, 0}, ts, cnst(vector.Int, int64(2), 2))
	expect(t, "timespan", res[0], []any{bin(0, 50, 1), bin(50, 100, 1)})

	p := col(vector.Bool, true, false, true, true, true, true, true, true)
	res = run(t, "histogramif", 1, make([]uint32, 8), x, cnst(vector.Int, int64(2), 8), p)
	expect(t, "histogramif", res[0], []any{bin(0, 5, 2), bin(5, 10, 2)})

	if _, err := Lookup("histogram").New(&Context{}, []vector.Type{vector.Float, vector.Int}, []any{nil, int64(0)}); err == nil {
		t.Error("histogram accepted 0 bins")
	}
	if _, err := Lookup("histogram").Result([]vector.Type{vector.String, vector.Int}); err == nil {
		t.Error("histogram accepted strings")
	}
}

// TestHistogramSketch checks the binned counts of a sketched group: the
// total is exact and every bin is within the values lying within 1% of
// its edges.
func TestHistogramSketch(t *testing.T) {
	const n = 10000
	vals := make([]any, n)
	for i := range vals {
		vals[i] = float64(i + 1) // 1..10000, 1000 per bin
	}
	res := run(t, "histogram", 1, make([]uint32, n), col(vector.Float, vals...), cnst(vector.Int, int64(10), n))
	bins := values(res[0])[0].([]any)
	var total int64
	for i, b := range bins {
		m := b.(map[string]any)
		c := m["count"].(int64)
		total += c
		edge := m["to"].(float64)
		if slack := int64(0.02*edge) + 1; c < 1000-slack || c > 1000+slack {
			t.Errorf("bin %d = %v", i, m)
		}
	}
	if total != n {
		t.Errorf("total %d, want %d", total, n)
	}
	if lo := bins[0].(map[string]any)["from"]; lo != 1.0 {
		t.Errorf("first bin starts at %v, want the exact minimum 1", lo)
	}
}

func TestHistogramMerge(t *testing.T) {
	fx := newFixture(500, 4)
	checkMerge(t, "histogram", fx.n, fx.groups, fx.f, cnst(vector.Int, int64(5), 500))
	checkMerge(t, "histogramif", fx.n, fx.groups, fx.ts, cnst(vector.Int, int64(3), 500), fx.b)
}
