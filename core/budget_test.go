package core

import (
	"errors"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// A query that needs more memory than its budget fails with
// ErrMemoryExceeded (the API's 432) instead of growing without bound.
func TestMemoryBudget(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 2, true)))
	for _, q := range []string{
		"logs | summarize count() by id",
		"logs | distinct id, uri",
		"logs | sort by id asc",
	} {
		// No row limit: the sort holds every row, as the command line
		// runs it (the API's default limit would make it a top 1000).
		_, err := query(t, e, q, func(r *exec.Request) { r.MemoryBudget, r.DefaultLimit = 2048, -1 })
		if !errors.Is(err, exec.ErrMemoryExceeded) {
			t.Errorf("%s: want ErrMemoryExceeded, got %v", q, err)
		}
		if _, err := query(t, e, q); err != nil {
			t.Errorf("%s with the default budget: %v", q, err)
		}
	}
}
