package agg

import (
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestPercentileNearestRank(t *testing.T) {
	// KQL's nearest-rank definition on 1..10 (shuffled, with nulls):
	// p50 is the 5th value, p95 the 10th, p0 the minimum, p10 the 1st.
	x := col(vector.Int, int64(7), int64(3), nil, int64(10), int64(1), int64(5), int64(2), int64(9), nil, int64(4), int64(8), int64(6))
	g := make([]uint32, 12)
	for _, tc := range []struct {
		p    float64
		want int64
	}{{0, 1}, {10, 1}, {11, 2}, {50, 5}, {50.1, 6}, {90, 9}, {95, 10}, {100, 10}} {
		res := run(t, "percentile", 1, g, x, cnst(vector.Float, tc.p, 12))
		if res[0].Type != vector.Int {
			t.Fatalf("percentile of long is %s", res[0].Type)
		}
		expect(t, "p", res[0], tc.want)
	}

	// Types are kept: timespans (percentile(duration, 90)) and datetimes.
	ts := col(vector.TimeSpan, 100*time.Millisecond, 300*time.Millisecond, 200*time.Millisecond)
	expect(t, "timespan", run(t, "percentile", 1, make([]uint32, 3), ts, cnst(vector.Int, int64(90), 3))[0], 300*time.Millisecond)
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	dt := col(vector.DateTime, t0.Add(time.Hour), t0)
	expect(t, "datetime", run(t, "percentile", 1, make([]uint32, 2), dt, cnst(vector.Int, int64(50), 2))[0], t0)

	// Empty and all-null groups are null; NaN is ignored; infinities are
	// values at the ends.
	fl := col(vector.Float, nil, math.NaN(), 1.0, math.Inf(1), 2.0)
	res := run(t, "percentile", 3, []uint32{0, 0, 1, 1, 1}, fl, cnst(vector.Int, int64(100), 5))
	expect(t, "edges", res[0], nil, math.Inf(1), nil)

	expect(t, "const", run(t, "percentile", 1, make([]uint32, 3), cnst(vector.Float, 2.5, 3), cnst(vector.Int, int64(50), 3))[0], 2.5)
}

func TestPercentileArgs(t *testing.T) {
	for _, consts := range [][]any{{nil, int64(101)}, {nil, -1.0}, {nil, "x"}, {nil, []any{int64(50), "x"}}} {
		if _, err := Lookup("percentile").New(&Context{}, []vector.Type{vector.Float, vector.Int}, consts); err == nil {
			t.Errorf("percentile accepted %v", consts[1])
		}
	}
	if _, err := Lookup("percentile").Result([]vector.Type{vector.String, vector.Int}); err == nil {
		t.Error("percentile accepted a string column")
	}
}

func TestPercentilesArray(t *testing.T) {
	var vals []any
	for i := 100; i >= 1; i-- {
		vals = append(vals, float64(i))
	}
	x := col(vector.Float, vals...)
	g := make([]uint32, 100)
	n := len(vals)
	res := run(t, "percentiles_array", 1, g, x, cnst(vector.Int, int64(25), n), cnst(vector.Int, int64(50), n), cnst(vector.Float, 99.5, n))
	expect(t, "numbers", res[0], []any{25.0, 50.0, 100.0})

	// The dynamic-array form.
	res = run(t, "percentiles_array", 2, append(g[:99:99], 1), x, cnst(vector.Dynamic, []any{int64(0), int64(100)}, n))
	expect(t, "array", res[0], []any{2.0, 100.0}, []any{1.0, 1.0})

	// percentiles_arrayif(x, dynamic([...]), pred) as Axiom writes it.
	ts := col(vector.TimeSpan, time.Millisecond, 5*time.Millisecond, 3*time.Millisecond)
	p := col(vector.Bool, true, false, true)
	res = run(t, "percentiles_arrayif", 2, []uint32{0, 0, 0}, ts, cnst(vector.Dynamic, []any{int64(50), int64(99)}, 3), p)
	expect(t, "arrayif", res[0], []any{time.Millisecond, 3 * time.Millisecond}, nil)

	expect(t, "percentileif", run(t, "percentileif", 1, []uint32{0, 0, 0}, ts, cnst(vector.Int, int64(99), 3), p)[0], 3*time.Millisecond)
}

// TestPercentileSketchError feeds groups past the exact limit and checks
// every percentile against the exact nearest-rank value: the DDSketch
// answer must be within 1% relative error. The worst error seen is
// logged (go test -run SketchError -v) and quoted in percentile.go.
func TestPercentileSketchError(t *testing.T) {
	defer func(old int) { exactTotal = old }(exactTotal)
	exactTotal = 0 // every group past 1024 values becomes a sketch
	r := rand.New(rand.NewSource(3))
	dists := map[string]func() float64{
		"lognormal": func() float64 { return math.Exp(r.NormFloat64()*1.5 + 4) },
		"uniform":   func() float64 { return r.Float64() * 1000 },
		"signed":    func() float64 { return r.NormFloat64() * 50 },
	}
	for name, gen := range dists {
		const n = 200000
		vals := make([]any, n)
		sorted := make([]float64, n)
		for i := range vals {
			x := gen()
			vals[i], sorted[i] = x, x
		}
		slices.Sort(sorted)
		x := col(vector.Float, vals...)
		ps := []any{}
		for _, p := range []float64{0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100} {
			ps = append(ps, p)
		}
		res := run(t, "percentiles_array", 1, make([]uint32, n), x, cnst(vector.Dynamic, ps, n))
		got := values(res[0])[0].([]any)
		worst := 0.0
		for i, p := range ps {
			want := sorted[nearestRank(p.(float64), n)-1]
			rel := math.Abs(got[i].(float64)-want) / math.Abs(want)
			worst = max(worst, rel)
			if rel > ddAlpha+1e-12 {
				t.Errorf("%s p%v = %v, exact %v (%.3f%%)", name, p, got[i], want, 100*rel)
			}
		}
		t.Logf("%s: worst relative error over 11 percentiles of %d values: %.3f%%", name, n, 100*worst)
	}
}

func TestPercentileMerge(t *testing.T) {
	fx := newFixture(900, 5)
	c := func(p int64) *vector.Vector { return cnst(vector.Int, p, 900) }
	checkMerge(t, "percentile", fx.n, fx.groups, fx.f, c(50))
	checkMerge(t, "percentile", fx.n, fx.groups, fx.dt, c(95))
	checkMerge(t, "percentiles_array", fx.n, fx.groups, fx.ts, c(1), c(50), c(99))

	// Exact + sketch and sketch + sketch: DDSketch merges are lossless, so
	// the merged answer equals the one-pass answer.
	r := rand.New(rand.NewSource(9))
	var vals []any
	var groups []uint32
	for i := 0; i < 9000; i++ {
		vals = append(vals, r.ExpFloat64()*100)
		groups = append(groups, uint32(i%2))
	}
	checkMerge(t, "percentiles_array", 2, groups, col(vector.Float, vals...), cnst(vector.Int, int64(50), 9000), cnst(vector.Int, int64(99), 9000))
}
