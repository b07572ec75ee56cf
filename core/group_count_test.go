package core

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// TestDenseCountEqualsGeneral: count() by one long key, counted in lanes,
// answers what the general aggregation does (countif(true) keeps the
// query off the lanes), for popular and negative values, keys spread past
// the dense window, a selection left by a where, time bins, several
// workers, and groups in order of first appearance with one worker.
func TestDenseCountEqualsGeneral(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(topDB(t, 5, 3, 9000)))
	for _, q := range []string{
		"t | summarize %s by i",
		"t | where id %% 5 != 2 | summarize %s by i",
		"t | extend k = iff(id %% 10 < 8, 200, id %% 7 - 3) | summarize %s by k",
		"t | extend w = id * 100000 | summarize %s by w | order by w asc",
		"t | extend w = iff(id > 20000, id * 100000, id) | summarize %s by w | order by w asc",
		"t | summarize %s by bin(_time, 1s)",
		"t | summarize c1 = %[1]s, c2 = %[1]s by i",
		"t | summarize %s by id | order by id asc",
	} {
		for _, w := range []int{1, 3} {
			mod := func(r *exec.Request) { r.Workers = w }
			got := rowStrings(rows(mustQuery(t, e, fmt.Sprintf(q, "count()"), mod)), w > 1)
			want := rowStrings(rows(mustQuery(t, e, fmt.Sprintf(q, "countif(true)"), mod)), w > 1)
			if got != want {
				t.Errorf("%s with %d workers:\n got %v\nwant %v", fmt.Sprintf(q, "count()"), w, got, want)
			}
		}
	}
}

// rowStrings prints rows, sorted when the workers' groups merge in any
// order.
func rowStrings(rs [][]any, sorted bool) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprint(r)
	}
	if sorted {
		slices.Sort(out)
	}
	return strings.Join(out, " ")
}
