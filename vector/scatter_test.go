package vector

import (
	"reflect"
	"testing"
)

// Scatter puts each row back at its place: Gather then Scatter gives the
// selected rows their values and validity, and every other row null.
func TestScatterInvertsGather(t *testing.T) {
	sel := []int32{1, 4, 5}
	for _, v := range []*Vector{
		{Type: Int, Len: 6, Ints: []int64{1, 2, 3, 4, 5, 6}, Valid: Bitmap{0b011111}},
		{Type: Float, Len: 6, Floats: []float64{1, 2, 3, 4, 5, 6}},
		{Type: Bool, Len: 6, Bools: []bool{true, true, false, true, true, false}},
		{Type: String, Len: 6, Strs: []string{"a", "b", "c", "d", "e", "f"}},
		{Type: String, Len: 6, Dict: []string{"x", "y"}, Codes: []uint32{0, 1, 0, 1, 1, 0}},
		{Type: Dynamic, Len: 6, Dyns: []any{int64(1), "two", nil, 4.0, []any{}, true}, Valid: Bitmap{0b111011}},
	} {
		got := v.Gather(sel).Scatter(sel, v.Len)
		if got.Len != v.Len {
			t.Fatalf("%s: %d rows, want %d", v.Type, got.Len, v.Len)
		}
		j := 0
		for i := 0; i < v.Len; i++ {
			if j < len(sel) && int(sel[j]) == i {
				j++
				if !reflect.DeepEqual(got.Value(i), v.Value(i)) {
					t.Errorf("%s row %d: %v, want %v", v.Type, i, got.Value(i), v.Value(i))
				}
			} else if !got.IsNull(i) {
				t.Errorf("%s row %d: %v, want null (not selected)", v.Type, i, got.Value(i))
			}
		}
	}
	c := NewConst(Int, int64(7), 3).Scatter(sel, 9)
	if !c.Const || c.Len != 9 || c.Int(8) != 7 {
		t.Errorf("a constant scattered: %+v", c)
	}
}
