package core

import (
	"errors"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// What summarize keeps grows with its values as well as with its groups:
// make_list's and make_set's lists, dcount's sets, percentile's values
// and long string keys are charged to the query's memory budget, so a
// summarize holding more than the budget fails with the budget's error,
// while the same query under a budget that fits answers.
func TestSummarizeStateChargesBudget(t *testing.T) {
	// 20 parts of 10 rows, unflushed: 20 batches, each far under the
	// budget, so only what the summarize keeps across them can pass it.
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 20, false)))
	run := func(q string, budget int64) error {
		req := &exec.Request{APL: q, Now: fixtureNow, Workers: 1,
			NoColumnCache: true, DisableCache: true, MemoryBudget: budget}
		_, err := e.Query(t.Context(), req)
		return err
	}
	// 200 rows of 100 kB each: 20 MB held by the summarize, in a handful
	// of groups (the flat charge per group is a few hundred bytes).
	long := `strcat(id, strrep(strrep("0123456789", 100), 100 + status * 0))`
	for _, q := range []string{
		`logs | summarize make_list(` + long + `) by status`,
		`logs | summarize make_set(` + long + `) by status`,
		`logs | summarize make_list_if(` + long + `, status > 0) by status`,
		`logs | summarize count() by k = ` + long,
		`logs | summarize count() by k = ` + long + `, status`,
	} {
		if err := run(q, 64<<20); err != nil {
			t.Errorf("%s under 64 MB: %v", q, err)
		}
		if err := run(q, 8<<20); !errors.Is(err, exec.ErrMemoryExceeded) {
			t.Errorf("%s under 8 MB: want the budget's error, got %v", q, err)
		}
	}
	// dcount and percentile hold their values in per-group tables: 200
	// groups of 2,000 values, 3 MB of dcount sketches and 4 MB of exact
	// percentile values, from batches of 20,000 rows.
	for _, q := range []string{
		`logs | extend r = range(1, 2000 + status * 0) | mv-expand r | summarize dcount(r) by id`,
		`logs | extend r = range(1, 2000 + status * 0) | mv-expand r | summarize percentile(toint(r), 50) by id`,
	} {
		if err := run(q, 64<<20); err != nil {
			t.Errorf("%s under 64 MB: %v", q, err)
		}
		if err := run(q, 2<<20); !errors.Is(err, exec.ErrMemoryExceeded) {
			t.Errorf("%s under 2 MB: want the budget's error, got %v", q, err)
		}
	}
}

// An mv-expand hands its rows on in pieces, so a summarize over a
// million expanded rows with ten groups runs in 32 MB, about what its array costs (before, the
// million rows were one batch that the summarize held and was charged
// for: it failed under 48 MB), while a million groups still fail with the
// budget's error.
func TestSummarizeOverAnExpansionFollowsItsGroups(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, true)))
	run := func(q string, budget int64) error {
		req := &exec.Request{APL: q, Now: fixtureNow, Workers: 1, NoColumnCache: true, DisableCache: true, MemoryBudget: budget}
		_, err := e.Query(t.Context(), req)
		return err
	}
	const expand = `logs | take 1 | extend r = range(1, 1000000 + status * 0) | mv-expand r | summarize count() by k = `
	if err := run(expand+`tostring(r % 10)`, 32<<20); err != nil {
		t.Fatalf("ten groups under 32 MB: %v", err)
	}
	if err := run(expand+`tostring(r)`, 48<<20); !errors.Is(err, exec.ErrMemoryExceeded) {
		t.Errorf("a million groups under 48 MB: want the budget's error, got %v", err)
	}
}
