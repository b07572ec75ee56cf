package fn

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestSeriesElementwise(t *testing.T) {
	inf := math.Inf(1)
	bRunCases(t, []bCase{
		{"series_abs", []any{bJ(`[-1,2.5,null,"x",-0.0]`)}, []any{int64(1), 2.5, nil, nil, 0.0}},
		{"series_acos", []any{bJ(`[1,2,-1]`)}, []any{0.0, nil, math.Pi}},
		{"series_asin", []any{bJ(`[0,1.5]`)}, []any{0.0, nil}},
		{"series_atan", []any{bJ(`[1]`)}, []any{math.Pi / 4}},
		{"series_cos", []any{bJ(`[0]`)}, []any{1.0}},
		{"series_sin", []any{bJ(`[0]`)}, []any{0.0}},
		{"series_tan", []any{bJ(`[0]`)}, []any{0.0}},
		{"series_exp", []any{bJ(`[0,1]`)}, []any{1.0, math.E}},
		{"series_log", []any{bJ(`[1,0,-1]`)}, []any{0.0, math.Inf(-1), nil}},
		{"series_sign", []any{bJ(`[-3,0,2.5]`)}, []any{int64(-1), int64(0), 1.0}},
		{"series_floor", []any{bJ(`[1.5,-1.5,2]`)}, []any{1.0, -2.0, int64(2)}},
		{"series_ceiling", []any{bJ(`[1.5,-1.5,2]`)}, []any{2.0, -1.0, int64(2)}},
		{"series_abs", []any{bJ(`[]`)}, bJ(`[]`)},
		{"series_abs", []any{nullDyn}, nil},

		{"series_add", []any{bJ(`[1,2,3]`), bJ(`[4,5,6]`)}, bJ(`[5,7,9]`)},
		{"series_add", []any{bJ(`[1,2]`), bJ(`[1.5]`)}, []any{2.5, nil}},
		{"series_add", []any{bJ(`[1,2]`), 10}, bJ(`[11,12]`)},
		{"series_add", []any{10, bJ(`[1,2]`)}, bJ(`[11,12]`)},
		{"series_add", []any{bJ(`[1,null,"a"]`), 1.5}, []any{2.5, nil, nil}},
		{"series_add", []any{1, 2}, nil},
		{"series_add", []any{bJ(`[1]`), nullInt}, nil},
		{"series_subtract", []any{bJ(`[5,7]`), bJ(`[1,2.5]`)}, []any{int64(4), 4.5}},
		{"series_multiply", []any{bJ(`[2,3]`), bJ(`[4,0.5]`)}, []any{int64(8), 1.5}},
		{"series_divide", []any{bJ(`[1,2,-1]`), bJ(`[2,0,0]`)}, []any{0.5, inf, math.Inf(-1)}},
		{"series_divide", []any{bJ(`[0]`), bJ(`[0]`)}, []any{nil}},
		{"series_divide", []any{bJ(`[4,6]`), 2}, []any{2.0, 3.0}},
		{"series_pow", []any{bJ(`[2,3]`), 2}, []any{4.0, 9.0}},
		{"series_pow", []any{bJ(`[-8]`), 0.5}, []any{nil}},
		{"series_greater", []any{bJ(`[1,5,3]`), 2}, bJ(`[false,true,true]`)},
		{"series_greater_equals", []any{bJ(`[1,2,3]`), 2}, bJ(`[false,true,true]`)},
		{"series_less", []any{bJ(`[1,2,3]`), bJ(`[3,2,1]`)}, bJ(`[true,false,false]`)},
		{"series_less_equals", []any{bJ(`[1,2,3]`), bJ(`[3,2]`)}, bJ(`[true,true,null]`)},
		{"series_equals", []any{bJ(`[1,2.0,"2"]`), 2}, bJ(`[false,true,null]`)},
		{"series_not_equals", []any{bJ(`[1,2]`), 2}, bJ(`[true,false]`)},
		{"series_greater", []any{[]any{math.NaN()}, 1}, []any{nil}},
		// make_list(duration) builds series of timespans (Axiom's page
		// compares frontend and checkout span durations).
		{"series_greater", []any{[]any{30 * time.Millisecond, 50 * time.Millisecond, 10 * time.Millisecond},
			[]any{20 * time.Millisecond, 40 * time.Millisecond, 15 * time.Millisecond}}, bJ(`[true,true,false]`)},
		{"series_greater", []any{bJ(`[180,220,150,300]`), bJ(`[200,200,200,200]`)}, bJ(`[false,true,false,true]`)},
	})
}

func TestSeriesReductions(t *testing.T) {
	bRunCases(t, []bCase{
		{"series_max", []any{bJ(`[1,5,null,3]`)}, 5.0},
		{"series_max", []any{bJ(`[-1.5,-2]`)}, -1.5},
		{"series_max", []any{bJ(`[]`)}, nil},
		{"series_max", []any{bJ(`["a",null]`)}, nil},
		{"series_max", []any{bJ(`[1,5]`), bJ(`[3,2]`)}, bJ(`[3,5]`)},
		{"series_min", []any{bJ(`[4,-1,7]`)}, -1.0},
		{"series_min", []any{bJ(`[1,5]`), 2}, bJ(`[1,2]`)},
		{"series_min", []any{nullDyn}, nil},
		{"series_sum", []any{bJ(`[1,2,3.5,null]`)}, 6.5},
		{"series_sum", []any{bJ(`[]`)}, 0.0},
		{"series_magnitude", []any{bJ(`[3,4]`)}, 5.0},
		{"series_magnitude", []any{bJ(`[]`)}, 0.0},
		{"series_dot_product", []any{bJ(`[1,2,3]`), bJ(`[4,5,6]`)}, 32.0},
		{"series_dot_product", []any{bJ(`[1,2,3]`), bJ(`[4,5]`)}, 14.0},
		{"series_dot_product", []any{bJ(`[1,2]`), 2}, 6.0},
		{"series_cosine_similarity", []any{bJ(`[1,0]`), bJ(`[0,1]`)}, 0.0},
		{"series_cosine_similarity", []any{bJ(`[1,2]`), bJ(`[2,4]`)}, 1.0},
		{"series_cosine_similarity", []any{bJ(`[0,0]`), bJ(`[1,1]`)}, nil},
		{"series_pearson_correlation", []any{bJ(`[1,2,3]`), bJ(`[2,4,6]`)}, 1.0},
		{"series_pearson_correlation", []any{bJ(`[1,2,3]`), bJ(`[3,2,1]`)}, -1.0},
		{"series_pearson_correlation", []any{bJ(`[1,1,1]`), bJ(`[1,2,3]`)}, nil},
		{"series_pearson_correlation", []any{bJ(`[1,2,null,4]`), bJ(`[2,4,7,8]`)}, 1.0},
		// Axiom's page: an array [min, min_idx, max, max_idx, avg, variance,
		// stdev]; a bag here made stats[0]..stats[6] null.
		{"series_stats", []any{bJ(`[1,2,3,4]`)},
			[]any{1.0, int64(0), 4.0, int64(3), 2.5, 5.0 / 3, math.Sqrt(5.0 / 3)}},
		{"series_stats_dynamic", []any{bJ(`[1,2,3,4]`)},
			map[string]any{"min": 1.0, "min_idx": int64(0), "max": 4.0, "max_idx": int64(3), "avg": 2.5, "variance": 5.0 / 3, "stdev": math.Sqrt(5.0 / 3)}},
		{"series_stats_dynamic", []any{bJ(`[5,null,"x",5]`)},
			map[string]any{"min": 5.0, "min_idx": int64(0), "max": 5.0, "max_idx": int64(0), "avg": 5.0, "variance": 0.0, "stdev": 0.0}},
		{"series_stats", []any{bJ(`[]`)},
			[]any{nil, nil, nil, nil, nil, nil, nil}},
		{"series_stats", []any{[]any{1.0, math.Inf(1), 3.0}, true},
			[]any{1.0, int64(0), 3.0, int64(2), 2.0, 2.0, math.Sqrt2}},
	})
}

func TestSeriesFill(t *testing.T) {
	bRunCases(t, []bCase{
		{"series_fill_linear", []any{bJ(`[100,null,null,200]`)}, []any{int64(100), 100 + 100.0/3, 100 + 200.0/3, int64(200)}},
		{"series_fill_linear", []any{bJ(`[150,null,300]`)}, []any{int64(150), 225.0, int64(300)}},
		{"series_fill_linear", []any{bJ(`[100,null,null,250]`)}, []any{int64(100), 150.0, 200.0, int64(250)}},
		{"series_fill_linear", []any{bJ(`[null,1.0,null,3.0,null]`)}, []any{1.0, 1.0, 2.0, 3.0, 3.0}},
		{"series_fill_linear", []any{bJ(`[null,1.0,null,3.0,null]`), nullDyn, false}, []any{nil, 1.0, 2.0, 3.0, nil}},
		{"series_fill_linear", []any{bJ(`[1,0,0,4]`), 0}, []any{int64(1), 2.0, 3.0, int64(4)}},
		{"series_fill_linear", []any{bJ(`[null,null]`)}, bJ(`[0,0]`)},
		{"series_fill_linear", []any{bJ(`[null,null]`), nullDyn, true, 7}, bJ(`[7,7]`)},
		{"series_fill_linear", []any{bJ(`[]`)}, bJ(`[]`)},
		{"series_fill_linear", []any{[]any{50 * time.Millisecond, nil, 150 * time.Millisecond}}, []any{50 * time.Millisecond, 100 * time.Millisecond, 150 * time.Millisecond}},
		{"series_fill_forward", []any{bJ(`[null,1,null,null,3,null]`)}, bJ(`[null,1,1,1,3,3]`)},
		{"series_fill_forward", []any{bJ(`[1,-1,2]`), -1}, bJ(`[1,1,2]`)},
		{"series_fill_backward", []any{bJ(`[null,1,null,null,3,null]`)}, bJ(`[1,1,3,3,3,null]`)},
		{"series_fill_backward", []any{nullDyn}, nil},
		{"series_fill_const", []any{bJ(`[null,1,null]`), 0}, bJ(`[0,1,0]`)},
		{"series_fill_const", []any{bJ(`[1,-1,2]`), 0, -1}, bJ(`[1,0,2]`)},
	})
}

func TestSeriesFilters(t *testing.T) {
	x := bJ(`[0,1,2,3,4,5,6,7,8,9]`)
	bRunCases(t, []bCase{
		// KQL's documented series_fir results.
		{"series_fir", []any{x, bJ(`[1,1,1,1,1]`), false}, []any{0.0, 1.0, 3.0, 6.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0}},
		{"series_fir", []any{x, bJ(`[1,1,1,1,1]`), false, true}, []any{3.0, 6.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 30.0, 24.0}},
		{"series_fir", []any{x, bJ(`[1,-1]`), false}, []any{0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}},
		{"series_fir", []any{bJ(`[100,120,110,130,105]`), bJ(`[0.2,0.2,0.2,0.2,0.2]`)}, []any{20.0, 44.0, 66.0, 92.0, 113.0}},
		{"series_fir", []any{bJ(`[2,4]`), bJ(`[1,1]`)}, []any{1.0, 3.0}},
		{"series_fir", []any{bJ(`[2,null]`), bJ(`[1]`)}, []any{2.0, 0.0}},
		{"series_fir", []any{bJ(`[1]`), bJ(`[]`)}, nil},
		{"series_fir", []any{bJ(`[1]`), bJ(`["a"]`)}, nil},
		// A running sum is y[i] = x[i] + y[i-1].
		{"series_iir", []any{bJ(`[1,2,3,4]`), bJ(`[1]`), bJ(`[1,-1]`)}, []any{1.0, 3.0, 6.0, 10.0}},
		{"series_iir", []any{bJ(`[2,4]`), bJ(`[1]`), bJ(`[2]`)}, []any{1.0, 2.0}},
		{"series_iir", []any{bJ(`[1,1,1]`), bJ(`[0.5,0.5]`), bJ(`[1]`)}, []any{0.5, 1.0, 1.0}},
		{"series_iir", []any{bJ(`[1]`), bJ(`[1]`), bJ(`[0]`)}, nil},
	})
}

func TestSeriesFFT(t *testing.T) {
	s3 := math.Sqrt(3) / 2
	bRunCases(t, []bCase{
		{"series_fft", []any{bJ(`[1,0,0,0]`)}, []any{[]any{1.0, 1.0, 1.0, 1.0}, []any{0.0, 0.0, 0.0, 0.0}}},
		{"series_fft", []any{bJ(`[1,2,3,4]`)}, []any{[]any{10.0, -2.0, -2.0, -2.0}, []any{0.0, 2.0, 0.0, -2.0}}},
		{"series_fft", []any{bJ(`[1,2,3]`)}, []any{[]any{6.0, -1.5, -1.5}, []any{0.0, s3, -s3}}},
		{"series_fft", []any{bJ(`[]`)}, []any{[]any{}, []any{}}},
		{"series_fft", []any{bJ(`[1,null]`)}, nil},
		{"series_fft", []any{bJ(`[1,2]`), bJ(`[1]`)}, nil},
		{"series_ifft", []any{bJ(`[10,-2,-2,-2]`), bJ(`[0,2,0,-2]`)}, []any{1.0, 2.0, 3.0, 4.0}},
		{"series_ifft", []any{bJ(`[6,-1.5,-1.5]`), []any{0.0, s3, -s3}}, []any{1.0, 2.0, 3.0}},
		{"series_ifft", []any{bJ(`[4]`)}, []any{4.0}},
	})
	// Round trips over lengths that take both code paths.
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 2, 7, 16, 100, 127} {
		x := make([]any, n)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		spec := bCall(t, "series_fft", 1, xCol(vector.Dynamic, x))[0].([]any)
		back := bCall(t, "series_ifft", 1, xCol(vector.Dynamic, spec[0]), xCol(vector.Dynamic, spec[1]))[0].([]any)
		for j := range x {
			if math.Abs(back[j].(float64)-x[j].(float64)) > 1e-9 {
				t.Fatalf("n=%d: ifft(fft(x))[%d] = %v, want %v", n, j, back[j], x[j])
			}
		}
		// Parseval: Σ|x|² = Σ|X|²/n.
		var e1, e2 float64
		for j := range x {
			e1 += x[j].(float64) * x[j].(float64)
			re, im := spec[0].([]any)[j].(float64), spec[1].([]any)[j].(float64)
			e2 += re*re + im*im
		}
		if math.Abs(e1-e2/float64(n)) > 1e-9*math.Max(1, e1) {
			t.Errorf("n=%d: energy %v vs %v", n, e1, e2/float64(n))
		}
	}
}

func TestSeriesTypeErrors(t *testing.T) {
	bResultErr(t, "series_add", "argument 2 of series_add must be long or real, got string", vector.Dynamic, vector.String)
	bResultErr(t, "series_abs", "argument 1 of series_abs must be dynamic, got long", vector.Int)
	bResultErr(t, "series_max", "argument 1 of series_max must be dynamic, got real", vector.Float)
	if typ, err := Lookup("series_max").Result([]vector.Type{vector.Dynamic}); err != nil || typ != vector.Float {
		t.Errorf("series_max/1 type = %v, %v", typ, err)
	}
	if typ, err := Lookup("series_max").Result([]vector.Type{vector.Dynamic, vector.Int}); err != nil || typ != vector.Dynamic {
		t.Errorf("series_max/2 type = %v, %v", typ, err)
	}
}

func BenchmarkSeriesFFT(b *testing.B) {
	x := make([]any, 1000)
	for j := range x {
		x[j] = float64(j % 17)
	}
	args := []*vector.Vector{xCol(vector.Dynamic, x)}
	f := Lookup("series_fft")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f.Eval(&Context{}, args, Dense(1)); err != nil {
			b.Fatal(err)
		}
	}
}
