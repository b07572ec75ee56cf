package fn

import (
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestMathFunctions(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	xRunCases(t, []xCase{
		{"abs", []any{int64(-5)}, int64(5)},
		{"abs", []any{-2.5}, 2.5},
		{"abs", []any{-90 * time.Second}, 90 * time.Second},
		{"abs", []any{int64(math.MinInt64)}, nil},
		{"sign", []any{int64(-7)}, int64(-1)},
		{"sign", []any{0.0}, 0.0},
		{"sign", []any{3.5}, 1.0},
		{"sqrt", []any{int64(16)}, 4.0},
		{"sqrt", []any{-1.0}, nan},
		{"pow", []any{int64(2), int64(10)}, 1024.0},
		{"exp", []any{0.0}, 1.0},
		{"exp2", []any{int64(3)}, 8.0},
		{"exp10", []any{int64(3)}, 1000.0},
		{"log", []any{math.E}, 1.0},
		{"log", []any{0.0}, math.Inf(-1)},
		{"log2", []any{int64(8)}, 3.0},
		{"log10", []any{int64(1000)}, 3.0},
		{"cos", []any{0.0}, 1.0},
		{"sin", []any{0.0}, 0.0},
		{"tan", []any{0.0}, 0.0},
		{"cot", []any{math.Pi / 4}, 1.0},
		{"acos", []any{1.0}, 0.0},
		{"asin", []any{1.0}, math.Pi / 2},
		{"atan", []any{1.0}, math.Pi / 4},
		{"atan2", []any{1.0, 1.0}, math.Pi / 4},
		{"degrees", []any{math.Pi}, 180.0},
		{"radians", []any{int64(180)}, math.Pi},
		{"gamma", []any{int64(5)}, 24.0},
		{"loggamma", []any{int64(5)}, math.Log(24)},
		{"pi", []any{}, math.Pi},
		{"round", []any{2.5}, 3.0},
		{"round", []any{-2.5}, -3.0},
		{"round", []any{2.15, 1}, 2.2},
		{"round", []any{int64(1234), -2}, int64(1200)},
		{"round", []any{int64(1234)}, int64(1234)},
		{"round", []any{xTyped{vector.Float, nil}, 1}, nil},
		{"max_of", []any{int64(10), int64(1), xTyped{vector.Int, nil}, int64(7)}, int64(10)},
		{"max_of", []any{int64(1), 2.5}, 2.5},
		{"min_of", []any{int64(10), int64(1), int64(7)}, int64(1)},
		{"min_of", []any{"b", "a", "c"}, "a"},
		{"max_of", []any{time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)}, time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"max_of", []any{xTyped{vector.Int, nil}, xTyped{vector.Int, nil}}, nil},
		{"min_of", []any{nan, 3.0}, 3.0},
		{"not", []any{true}, false},
		{"not", []any{xTyped{vector.Bool, nil}}, nil},
		{"isnan", []any{nan}, true},
		{"isnan", []any{int64(1)}, false},
		{"isinf", []any{inf}, true},
		{"isinf", []any{math.Inf(-1)}, true},
		{"isfinite", []any{inf}, false},
		{"isfinite", []any{1.5}, true},
		{"isint", []any{int64(3)}, true},
		{"isint", []any{3.0}, true},
		{"isint", []any{3.5}, false},
		{"isint", []any{nan}, false},
		{"isint", []any{inf}, false},
		{"range", []any{int64(1), int64(5)}, []any{int64(1), int64(2), int64(3), int64(4), int64(5)}},
		{"range", []any{int64(10), int64(1), int64(-4)}, []any{int64(10), int64(6), int64(2)}},
		{"range", []any{1.0, 2.0, 0.5}, []any{1.0, 1.5, 2.0}},
		{"range", []any{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 1, 2, 0, 0, 0, time.UTC), time.Hour},
			[]any{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 1, 1, 0, 0, 0, time.UTC), time.Date(2024, 1, 1, 2, 0, 0, 0, time.UTC)}},
		{"range", []any{int64(1), int64(5), int64(0)}, nil},
		{"range", []any{int64(0), int64(1 << 30)}, nil},
		{"range", []any{int64(5), int64(1)}, []any{}},
		{"set_has_element", []any{[]any{"this", "is", "an"}, "is"}, true},
		{"set_has_element", []any{[]any{int64(1), int64(2)}, 1.0}, true},
		{"set_has_element", []any{[]any{int64(1), int64(2)}, int64(3)}, false},
		{"set_union", []any{[]any{int64(1), int64(2)}, []any{int64(2), int64(3)}}, []any{int64(1), int64(2), int64(3)}},
		{"set_intersect", []any{[]any{int64(1), int64(2), int64(3)}, []any{int64(3), int64(2), int64(9)}, []any{int64(2), int64(3)}}, []any{int64(2), int64(3)}},
		{"set_difference", []any{[]any{int64(1), int64(2), int64(2), int64(3)}, []any{int64(2)}}, []any{int64(1), int64(3)}},
		{"set_union", []any{[]any{int64(1)}, map[string]any{"a": int64(1)}}, nil},
	})
	xRunTypeErrs(t, []xTypeErr{
		{"sqrt", []vector.Type{vector.String}, "argument 1 of sqrt must be long or real, got string"},
		{"round", []vector.Type{vector.Float, vector.Float}, "argument 2 of round must be long, got real"},
		{"not", []vector.Type{vector.Int}, "argument 1 of not must be bool, got long"},
		{"max_of", []vector.Type{vector.Int, vector.Bool}, "argument 2 of max_of must be long, real, string, datetime or timespan, got bool"},
		{"set_union", []vector.Type{vector.Dynamic, vector.String}, "argument 2 of set_union must be dynamic, got string"},
	})
}

func TestRandIsVolatileAndInRange(t *testing.T) {
	f := Lookup("rand")
	if !f.Volatile {
		t.Fatal("rand must be volatile so the planner never folds it")
	}
	out, err := f.Eval(&Context{Rand: 42}, nil, Dense(1000))
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[float64]bool{}
	for i := 0; i < out.Len; i++ {
		x := out.Float(i)
		if x < 0 || x >= 1 {
			t.Fatalf("rand() = %v outside [0, 1)", x)
		}
		distinct[x] = true
	}
	if len(distinct) < 990 {
		t.Fatalf("only %d distinct values in 1000", len(distinct))
	}
	ints, err := f.Eval(&Context{Rand: 42}, []*vector.Vector{xConst(vector.Int, int64(6), 500)}, Dense(500))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for i := 0; i < ints.Len; i++ {
		k := ints.Int(i)
		if k < 0 || k >= 6 {
			t.Fatalf("rand(6) = %d", k)
		}
		seen[k] = true
	}
	if len(seen) != 6 {
		t.Fatalf("rand(6) produced %d of 6 values in 500 draws", len(seen))
	}
}

func BenchmarkSqrtColumn(b *testing.B) {
	vals := make([]any, vector.BatchSize)
	for i := range vals {
		vals[i] = float64(i)
	}
	args := []*vector.Vector{xCol(vector.Float, vals...)}
	f := Lookup("sqrt")
	b.ReportAllocs()
	b.SetBytes(vector.BatchSize * 8)
	for b.Loop() {
		if _, err := f.Eval(&Context{}, args, Dense(vector.BatchSize)); err != nil {
			b.Fatal(err)
		}
	}
}
