package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// wide is a 100 kB string per row that only strcat builds: strrep charges
// its 10 kB while it runs and gives them back, as functions do.
const wide = `extend s = strrep("0123456789", 1000 + status * 0) | extend w = strcat(s, s, s, s, s, s, s, s, s, id, s)`

// runBudget runs q with budget bytes of memory and no row limit.
func runBudget(t *testing.T, e *Engine, q string, budget int64) error {
	req := &exec.Request{APL: q, Now: fixtureNow, Workers: 1, NoColumnCache: true, DisableCache: true,
		MemoryBudget: budget, DefaultLimit: -1}
	_, err := e.Query(t.Context(), req)
	return err
}

// The columns a stage builds are charged while its batch is in flight:
// 200 rows of 100 kB built by strcat in one batch are 20 MB, over a
// 12 MB budget however briefly they live, while 64 MB runs the query.
func TestBuiltColumnsChargeBudget(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, true)))
	for _, q := range []string{
		`logs | ` + wide + ` | summarize count()`,
		`logs | ` + wide + ` | project n = strlen(w) | summarize sum(n)`,
		`logs | extend r = range(1, 3 + status * 0) | mv-expand r | ` + wide + ` | count`,
	} {
		if err := runBudget(t, e, q, 64<<20); err != nil {
			t.Errorf("%s under 64 MB: %v", q, err)
		}
		if err := runBudget(t, e, q, 12<<20); !errors.Is(err, exec.ErrMemoryExceeded) {
			t.Errorf("%s under 12 MB: want the budget's error, got %v", q, err)
		}
	}
}

// Operators that keep rows charge what the rows hold, strings by their
// bytes: 20 batches of 1 MB each pass a 12 MB budget one at a time, but
// a sort, a take or a top that keeps all 200 rows holds 20 MB.
func TestKeptRowsChargeTheirBytes(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 20, false)))
	for _, tail := range []string{
		`sort by w asc`,
		`take 1000`,
		`top 1000 by w desc`,
		`order by w desc | take 500`,
		`project w`,
	} {
		q := `logs | ` + wide + ` | ` + tail
		if err := runBudget(t, e, q, 64<<20); err != nil {
			t.Errorf("%s under 64 MB: %v", tail, err)
		}
		err := runBudget(t, e, q, 12<<20)
		if !errors.Is(err, exec.ErrMemoryExceeded) || !strings.Contains(err.Error(), "needs more than 12 MB") {
			t.Errorf("%s under 12 MB: want the budget's error, got %v", tail, err)
		}
	}
	// A top of a few rows keeps only the batches its winners are in.
	if err := runBudget(t, e, `logs | `+wide+` | top 2 by w desc`, 12<<20); err != nil {
		t.Errorf("top 2 under 12 MB: %v", err)
	}
}
