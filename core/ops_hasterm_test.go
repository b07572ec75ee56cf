package core

import (
	"fmt"
	"testing"
)

// Through the engine: after an earlier filter (a selection) the operator
// answers the live rows, folds case, respects Unicode neighbours, and a
// null message matches only the negated form; a null needle matches
// nothing.
func TestFoldTermQuery(t *testing.T) {
	e := NewEngine(nil)
	data := `datatable(n:long, m:string) [1, "a timeout", 2, "TIMEOUT!", 3, "timeouts", 4, "xtİmeout", 5, "tİmeout", 6, "timeoutß", 7, string(null)] | where n > 1`
	for q, want := range map[string]string{
		data + ` | where m has "timeout" | project n`:          "[[2] [5]]",
		data + ` | where m !has "timeout" | project n`:         "[[3] [4] [6] [7]]",
		data + ` | where m hasprefix "TIME" | project n`:       "[[2] [3] [5] [6]]",
		data + ` | where m hassuffix "meout" | project n`:      "[[2] [4] [5]]",
		data + ` | where m has "timeout" or false | project n`: "[[2] [5]]",
		data + ` | where m contains "MEOUT" | project n`:       "[[2] [3] [4] [5] [6]]",
		data + ` | where m !contains "MEOUT" | project n`:      "[[7]]",
		data + ` | where m has string(null) | count`:           "[[0]]",
	} {
		if got := fmt.Sprint(rows(mustQuery(t, e, q))); got != want {
			t.Errorf("%s\n got %s, want %s", q, got, want)
		}
	}
}
