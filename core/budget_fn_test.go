package core

import (
	"errors"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// Functions whose results dwarf their arguments charge the query's memory
// budget: four nested strrep ask for a terabyte, which once took the
// server down; now the query fails alone with ErrMemoryExceeded, whether
// the expression is folded as a constant or computed per row.
func TestStrrepMemoryBudget(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, true)))
	for _, q := range []string{
		`print n = strlen(strrep(strrep(strrep(strrep("x", 1024), 1024), 1024), 1024))`,
		`logs | extend s = strrep(strrep(strrep(uri, 1024), 1024), 1024) | summarize max(strlen(s))`,
	} {
		_, err := query(t, e, q, func(r *exec.Request) { r.MemoryBudget = 64 << 20 })
		if !errors.Is(err, exec.ErrMemoryExceeded) {
			t.Errorf("%s: want ErrMemoryExceeded, got %v", q, err)
		}
	}
	// What fits still runs, and its charge is given back: many rows of
	// 1 MB strings stay within a 64 MB budget.
	q := `logs | extend s = strrep(strrep("x", 1024), 1024) | summarize max(strlen(s))`
	res, err := query(t, e, q, func(r *exec.Request) { r.MemoryBudget = 64 << 20 })
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if got := rows(res); len(got) != 1 || got[0][0] != int64(1<<20) {
		t.Fatalf("%s: %v", q, got)
	}
}
