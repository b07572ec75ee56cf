package vector

import (
	"math/rand"
	"reflect"
	"testing"
)

// Every generated kernel agrees with a plain loop, with and without an
// input selection.
func TestSelKernels(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ints := make([]int64, 1000)
	floats := make([]float64, 1000)
	for i := range ints {
		ints[i] = int64(r.Intn(20)) - 10
		floats[i] = float64(ints[i]) / 2
	}
	var sel []int32
	for i := 0; i < 1000; i += 3 {
		sel = append(sel, int32(i))
	}
	cmp := map[string]func(a, b float64) bool{
		"==": func(a, b float64) bool { return a == b }, "!=": func(a, b float64) bool { return a != b },
		"<": func(a, b float64) bool { return a < b }, "<=": func(a, b float64) bool { return a <= b },
		">": func(a, b float64) bool { return a > b }, ">=": func(a, b float64) bool { return a >= b },
	}
	for op, f := range cmp {
		for _, s := range [][]int32{nil, sel} {
			var wantI, wantF []int32
			rows := s
			if rows == nil {
				for i := range ints {
					rows = append(rows, int32(i))
				}
			}
			for _, i := range rows {
				if f(float64(ints[i]), 3) {
					wantI = append(wantI, i)
				}
				if f(floats[i], 1.5) {
					wantF = append(wantF, i)
				}
			}
			gotI := SelConstInt64[op](ints, 3, s, nil)
			gotF := SelConstFloat64[op](floats, 1.5, s, nil)
			if !reflect.DeepEqual(gotI, wantI) || !reflect.DeepEqual(gotF, wantF) {
				t.Errorf("op %s sel=%v: kernels disagree with the plain loop", op, s != nil)
			}
		}
	}
	if len(SelConstInt64) != len(cmp) || len(SelConstFloat64) != len(cmp) {
		t.Error("a comparison operator has no filter kernel, or an unknown one has")
	}
}

// BenchmarkSelEqInt64 is the filter + count inner loop over an integer
// column: it must not allocate per row.
func BenchmarkSelEqInt64(b *testing.B) {
	col := make([]int64, 1<<16)
	for i := range col {
		col[i] = int64(i % 13)
	}
	out := make([]int32, 0, len(col))
	b.SetBytes(int64(len(col) * 8))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		out = SelEqInt64Const(col, 5, nil, out[:0])
	}
	b.ReportMetric(float64(len(col))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
