package agg

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/aplite/aplite/vector"
)

// selectKth agrees with sorting for every rank, duplicates included.
func TestSelectKth(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, n := range []int{1, 2, 3, 10, 1000} {
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(r.Intn(n/2 + 1))
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		for k := 0; k < n; k++ {
			if got := selectKth(slices.Clone(vals), k); got != sorted[k] {
				t.Fatalf("n=%d k=%d: got %d want %d", n, k, got, sorted[k])
			}
			if got := radixSelect(chunked(vals), k); got != sorted[k] {
				t.Fatalf("radix n=%d k=%d: got %d want %d", n, k, got, sorted[k])
			}
		}
		// Negative and positive reals, including -0 and infinities.
		fs := []float64{3.5, -1, 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), -7.25, 2}
		fsorted := slices.Clone(fs)
		slices.Sort(fsorted)
		for k := range fs {
			if got := radixSelect(chunked(fs), k); got != fsorted[k] && !(got == 0 && fsorted[k] == 0) {
				t.Fatalf("float k=%d: got %v want %v", k, got, fsorted[k])
			}
		}
	}
}

// A large group stays exact while the state holds few values in total:
// its percentiles are exactly the nearest-rank values.
func TestPercentileLargeGroupExact(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	const n = 200000
	v := vector.New(vector.Float, n)
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = r.ExpFloat64()
		v.AppendFloat(vals[i])
	}
	sorted := slices.Clone(vals)
	slices.Sort(sorted)
	spec := Lookup("percentiles_array")
	st, err := spec.New(&Context{}, []vector.Type{vector.Float, vector.Int, vector.Int, vector.Int}, []any{nil, int64(50), int64(95), int64(99)})
	if err != nil {
		t.Fatal(err)
	}
	st.Grow(1)
	st.Update([]*vector.Vector{v}, nil, make([]uint32, n))
	got := st.Result(1)[0].Dyn(0).([]any)
	for i, p := range []float64{50, 95, 99} {
		want := sorted[nearestRank(p, n)-1]
		if got[i] != want {
			t.Errorf("p%v: got %v want %v", p, got[i], want)
		}
	}
}

// chunked stores vals in a group, crossing chunk boundaries when long.
func chunked[T number](vals []T) *qgroup[T] {
	g := &qgroup[T]{}
	for _, x := range vals {
		g.add(x)
	}
	return g
}
