package exec

import (
	"fmt"
	"math"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestMixedSideReadFromBlocks checks that a mixed field read from sealed
// blocks and from the buffer gets its unboxed side with the right bits,
// and that a long beyond 2^53 keeps the column boxed.
func TestMixedSideReadFromBlocks(t *testing.T) {
	v := &vector.Vector{Type: vector.Dynamic}
	for _, x := range []any{int64(3), 2.5, "12.5", "n/a", nil, true, math.NaN()} {
		v.AppendDyn(x)
	}
	m := withMixed(v).Mix()
	if m == nil {
		t.Fatal("no mixed side")
	}
	bits := func(b vector.Bitmap) string {
		s := ""
		for i := range v.Len {
			s += map[bool]string{true: "1", false: "0"}[b.Get(i)]
		}
		return s
	}
	if got := fmt.Sprint(bits(m.Num), " ", bits(m.Int), " ", bits(m.Real), " ", m.Floats[:4]); got != "1100001 1000000 1110011 [3 2.5 12.5 0]" {
		t.Errorf("mixed side = %s", got)
	}
	v.AppendDyn(int64(1<<53 + 1))
	if withMixed(v).Mix() != nil {
		t.Error("a long beyond 2^53 got a mixed side")
	}
	if s := v.Slice(0, 3); s.Mix() != nil {
		t.Error("a slice of a vector without a mixed side has one")
	}
	w := withMixed(v.Slice(0, 7))
	if s := w.Slice(0, 3); s.Mix() == nil || len(s.Mix().Floats) != 3 {
		t.Error("a slice lost the mixed side")
	}
	if g := w.Gather([]int32{2, 0}).Mix(); g == nil || fmt.Sprint(g.Floats, g.Num.Get(0), g.Num.Get(1), g.Int.Get(1), g.Real.Get(0)) != "[12.5 3] false true true true" {
		t.Errorf("gathered mixed side = %+v", g)
	}
}
