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
