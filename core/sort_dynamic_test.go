package core

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// A sort or top over a field mixing numbers and words is a total order:
// the same keys whatever the workers and the order rows arrive in. Rows
// with equal keys (3 and "3.0") may swap, so the queries keep only the
// key, printed by its sort class (sortKeyText). Before, "n/a" compared
// equal to every number and `top 10 by x` gave different rows run to run.
func TestSortMixedFieldIsDeterministic(t *testing.T) {
	defer func() { mixedTies = false }()
	for _, boxed := range []bool{false, true} {
		exec.MixedColumns = !boxed
		e := mixedEngine(t, 11, 6000, false, false)
		for _, q := range []string{
			`events | top 10 by x | project x = tostring(x)`,
			`events | top 25 by x asc | project x = tostring(x)`,
			`events | sort by x desc | project x = tostring(x) | take 400`,
		} {
			var first string
			for run := 0; run < 12; run++ {
				w := 1 + run%4
				got := sortKeyText(rows(mustQuery(t, e, q, func(r *exec.Request) { r.Workers = w })))
				if run == 0 {
					first = got
				} else if got != first {
					t.Fatalf("boxed=%v %s: run %d (%d workers) answered\n%s\nrun 0 answered\n%s", boxed, q, run, w, got, first)
				}
			}
		}
	}
	exec.MixedColumns = true
}

// sortKeyText prints the first column of an answer by sort class and key,
// so rows holding equal keys in other boxes (3, "3.0") print alike.
func sortKeyText(rs [][]any) string {
	var b strings.Builder
	for _, r := range rs {
		c, f, s := exec.SortClass(r[0])
		fmt.Fprintf(&b, "%d:%v:%q ", c, f, s)
	}
	return b.String()
}

func TestSortDynamicLargeLongs(t *testing.T) {
	q := `datatable(x:dynamic)[dynamic(9007199254740993), dynamic(9007199254740992), dynamic(9007199254740994)] | sort by x asc | project x = tostring(x)`
	got := fmt.Sprint(rows(mustQuery(t, NewEngine(nil), q)))
	if want := "[[9007199254740992] [9007199254740993] [9007199254740994]]"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
