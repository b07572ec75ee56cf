package core

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// A sort or top over a field mixing numbers and words is a total order:
// the same keys whatever the workers and the order rows arrive in. Rows
// with equal keys (3 and "3.0") may swap, so the queries keep only the
// key, printed by its sort class (sortKeyText). Before, "n/a" compared
// equal to every number and `top 10 by x` gave different rows run to run.
func TestSortMixedFieldIsDeterministic(t *testing.T) {
	defer func() { mixedTies = false }()
	for _, boxed := range []bool{false, true} {
		mixedColumns = !boxed
		e := mixedEngine(t, 11, 6000, false, false)
		for _, q := range []string{
			`events | top 10 by x | project x = tostring(x)`,
			`events | top 25 by x asc | project x = tostring(x)`,
			`events | sort by x desc | project x = tostring(x) | take 400`,
		} {
			var first string
			for run := 0; run < 12; run++ {
				w := 1 + run%4
				got := sortKeyText(rows(mustQuery(t, e, q, func(r *Request) { r.Workers = w })))
				if run == 0 {
					first = got
				} else if got != first {
					t.Fatalf("boxed=%v %s: run %d (%d workers) answered\n%s\nrun 0 answered\n%s", boxed, q, run, w, got, first)
				}
			}
		}
	}
	mixedColumns = true
}

// sortKeyText prints the first column of an answer by sort class and key,
// so rows holding equal keys in other boxes (3, "3.0") print alike.
func sortKeyText(rs [][]any) string {
	var b strings.Builder
	for _, r := range rs {
		c, f, s := sortClass(r[0])
		fmt.Fprintf(&b, "%d:%v:%q ", c, f, s)
	}
	return b.String()
}

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

func TestSortDynamicLargeLongs(t *testing.T) {
	q := `datatable(x:dynamic)[dynamic(9007199254740993), dynamic(9007199254740992), dynamic(9007199254740994)] | sort by x asc | project x = tostring(x)`
	got := fmt.Sprint(rows(mustQuery(t, NewEngine(nil), q)))
	if want := "[[9007199254740992] [9007199254740993] [9007199254740994]]"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
