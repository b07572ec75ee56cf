package core

import (
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/render"
)

// Paging with minCursor walks the raw events newest first without gaps or
// repeats (the fixture has distinct timestamps).
func TestCursorPaging(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 3, true)))
	seen := map[any]bool{}
	cursor := ""
	for page := 0; page < 10; page++ {
		r := mustQuery(t, e, "logs | project _time, id", func(q *exec.Request) { q.Cursor = cursor; q.DefaultLimit = 30 })
		if r.NumRows() == 0 {
			break
		}
		for _, row := range rows(r) {
			if seen[row[1]] {
				t.Fatalf("page %d repeats %v", page, row[1])
			}
			seen[row[1]] = true
		}
		cursor = render.Tabular(r).Status.MinCursor
		if _, ok := exec.ParseCursor(cursor); !ok {
			t.Fatalf("bad minCursor %q", cursor)
		}
	}
	if len(seen) != 200 {
		t.Errorf("paged through %d events, want 200", len(seen))
	}
}
