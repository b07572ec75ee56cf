package exec

import (
	"math"
	"testing"
	"time"
)

// orderAny's classes in order: numbers (numeric strings, bools and
// timespans among them, NaN first), datetimes, words, composites.
func TestOrderAnyClasses(t *testing.T) {
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	sorted := []any{math.NaN(), int64(-5), false, "0.5", true, 2.5, "10", int64(11), 90 * time.Second,
		day, day.Add(time.Hour), "", "abc", "n/a", []any{int64(1)}, map[string]any{"a": int64(1)}}
	for i := range sorted {
		for j := range sorted {
			got := orderAny(sorted[i], sorted[j])
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got != want {
				t.Errorf("orderAny(%#v, %#v) = %d, want %d", sorted[i], sorted[j], got, want)
			}
		}
	}
}

// Longs beyond 2^53 share a float64 with their neighbours; a dynamic
// column holding them sorts as a long column does, and a long against a
// real compares exactly.
func TestOrderAnyLargeLongs(t *testing.T) {
	big := int64(1) << 53
	for _, c := range []struct {
		a, b any
		want int
	}{
		{big + 1, big, 1},
		{big, big + 1, -1},
		{big + 1, big + 1, 0},
		{int64(math.MaxInt64), int64(math.MaxInt64 - 1), 1},
		{big + 1, float64(big), 1},
		{float64(big), big + 1, -1},
		{int64(3), 3.5, -1},
		{int64(-3), -3.5, 1},
		{int64(4), 4.0, 0},
		{int64(math.MaxInt64), math.Inf(1), -1},
		{int64(math.MinInt64), math.Inf(-1), 1},
		{int64(math.MinInt64), -9.3e18, 1},
		{int64(1), math.NaN(), 1},
		{math.NaN(), int64(1), -1},
	} {
		if got := orderAny(c.a, c.b); got != c.want {
			t.Errorf("orderAny(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
