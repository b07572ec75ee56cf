package core

import (
	"testing"

	"github.com/aplite/aplite/core/exec"
)

func TestUnionAndSearch(t *testing.T) {
	runOpCases(t, []opCase{
		{q: "let U = datatable(k:string, w:bool) ['z', true]; T | union U | summarize count() by k | sort by k asc",
			rows: [][]any{{"a", int64(2)}, {"b", int64(1)}, {"c", int64(1)}, {"z", int64(1)}}},
		{q: "let U = datatable(v:real) [9.5]; T | union U | where isnotnull(v) | summarize sum(v)", rows: [][]any{{15.5}}},
		{q: "let A = datatable(x:long) [1]; let B = datatable(x:long) [2]; union A, B | sort by x asc", rows: [][]any{{int64(1)}, {int64(2)}}},
		{q: "T | union nosuchtable", err: "unknown dataset or table"},
	})
	// search over a dataset: bare terms, field:term and wildcards.
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 2, true)))
	for q, want := range map[string]int64{
		`search "Higgs" | count`:                 35,
		`search in (logs) method:"POST" | count`: 26,
		`search "Hig*" | count`:                  35,
		`search * | count`:                       200,
	} {
		if got := rows(mustQuery(t, e, q))[0][0]; got != want {
			t.Errorf("%s = %v, want %d", q, got, want)
		}
	}
}
