package exec

import (
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestMergeNumericOverlay checks the bitwise merge: the first piece wins
// where both hold a value, nulls survive where neither does, across word
// boundaries.
func TestMergeNumericOverlay(t *testing.T) {
	const n = 130
	ints, floats := vector.New(vector.Int, n), vector.New(vector.Float, n)
	for i := range n {
		switch {
		case i%3 == 0:
			ints.AppendInt(int64(i))
			floats.AppendNull()
		case i%3 == 1:
			ints.AppendNull()
			floats.AppendFloat(float64(i) + 0.5)
		default:
			ints.AppendNull()
			floats.AppendNull()
		}
	}
	ints.AppendNull() // one row past n must not leak in
	ints.Len = n
	ints.Ints = ints.Ints[:n]
	got := mergeNumeric([]*vector.Vector{ints, floats}, vector.Float, n)
	for i := range n {
		switch {
		case i%3 == 2:
			if !got.IsNull(i) {
				t.Fatalf("row %d: %v, want null", i, got.Value(i))
			}
		case i%3 == 0:
			if got.IsNull(i) || got.Float(i) != float64(i) {
				t.Fatalf("row %d: %v, want %d", i, got.Value(i), i)
			}
		default:
			if got.IsNull(i) || got.Float(i) != float64(i)+0.5 {
				t.Fatalf("row %d: %v, want %v", i, got.Value(i), float64(i)+0.5)
			}
		}
	}
	whole := vector.New(vector.Int, n)
	for i := range n {
		whole.AppendInt(int64(i))
	}
	if m := mergeNumeric([]*vector.Vector{whole, floats}, vector.Float, n); m.Valid != nil || m.Float(1) != 1 {
		t.Fatalf("a piece without nulls: valid %v, row 1 = %v", m.Valid, m.Value(1))
	}
}
