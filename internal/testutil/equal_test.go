package testutil

import (
	"math"
	"testing"
	"time"
)

func TestSameValueAndCloseValue(t *testing.T) {
	t.Parallel()
	nan, negZero := math.NaN(), math.Copysign(0, -1)
	at := time.Unix(1e9, 0)
	for _, c := range []struct {
		a, b        any
		same, close bool
	}{
		{nan, nan, true, true},
		{[]any{nan, "x"}, []any{nan, "x"}, true, true},
		{negZero, 0.0, false, true},
		{1.0, 1.0 + 1e-12, false, true},
		{1.0, 1.001, false, false},
		{int64(1), 1.0, false, false},
		{map[string]any{"a": nil}, map[string]any{"b": nil}, false, false},
		{map[string]any{"a": []any{int64(2)}}, map[string]any{"a": []any{int64(2)}}, true, true},
		{[]any{1.0}, []any{1.0, 2.0}, false, false},
		{at, at.In(time.FixedZone("x", 3600)), true, true},
		{"a", "b", false, false},
	} {
		if got := SameValue(c.a, c.b); got != c.same {
			t.Errorf("SameValue(%v, %v) = %v", c.a, c.b, got)
		}
		if got := CloseValue(c.a, c.b, 1e-9); got != c.close {
			t.Errorf("CloseValue(%v, %v) = %v", c.a, c.b, got)
		}
	}
}
