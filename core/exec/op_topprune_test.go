package exec

import (
	"cmp"
	"fmt"
	"math"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestRanksOrderAsCompareKeys: ranks order values exactly as the sort
// does (a better rank sorts first), NaN, ±0, ±Inf and extreme longs
// included, and the threshold kernels keep exactly the rows ranked at or
// above the threshold.
func TestRanksOrderAsCompareKeys(t *testing.T) {
	floats := []float64{math.NaN(), math.Inf(-1), -1e300, -2.5, math.Copysign(0, -1), 0, 1e-300, 2.5, math.MaxFloat64, math.Inf(1)}
	ints := []int64{math.MinInt64, -3, -1, 0, 1, 7, math.MaxInt64}
	fv := &vector.Vector{Type: vector.Float, Len: len(floats), Floats: floats}
	iv := &vector.Vector{Type: vector.Int, Len: len(ints), Ints: ints}
	for _, v := range []*vector.Vector{fv, iv} {
		for _, desc := range []bool{false, true} {
			k := sortKey{Desc: desc, NullsLast: desc}
			for a := range v.Len {
				for c := range v.Len {
					ra, rc := rankAt(v, a, desc), rankAt(v, c, desc)
					if want, got := compareKeys(v, a, v, c, desc, k.NullsLast), -cmp.Compare(ra, rc); want != got {
						t.Errorf("%v desc=%v: %v vs %v: ranks say %d, compareKeys %d", v.Type, desc, v.Value(a), v.Value(c), got, want)
					}
				}
				thr := rankAt(v, a, desc)
				var want []int32
				for c := range v.Len {
					if rankAt(v, c, desc) >= thr {
						want = append(want, int32(c))
					}
				}
				if got := keepAtLeast(v, nil, v.Len, thr, k, nil); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%v desc=%v threshold %v: kept %v, want %v", v.Type, desc, v.Value(a), got, want)
				}
				all := make([]int32, v.Len)
				for i := range all {
					all[i] = int32(i)
				}
				if got := keepAtLeast(v, all, v.Len, thr, k, nil); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%v desc=%v threshold %v over a selection: kept %v, want %v", v.Type, desc, v.Value(a), got, want)
				}
			}
		}
	}
}
