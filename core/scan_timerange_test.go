package core

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// timesDB holds one part of n events one second apart from t0, written in
// the order given by perm; flushed to a block (which sorts by _time) when
// flush is set, else left in the in-memory buffer in that order.
func timesDB(t *testing.T, n int, t0 time.Time, perm func(int) int, flush bool) *Engine {
	t.Helper()
	var body strings.Builder
	for i := range n {
		j := perm(i)
		fmt.Fprintf(&body, "{\"_time\":%q,\"i\":%d}\n", t0.Add(time.Duration(j)*time.Second).Format(time.RFC3339), j)
	}
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	b := store.NewRowsBuilder()
	if _, err := ingest.Decode([]byte(body.String()), ingest.Options{Format: ingest.NDJSON, Now: fixtureNow.UnixNano()}, b); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(b.Finish(fixtureNow.UnixNano())); err != nil {
		t.Fatal(err)
	}
	if flush {
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	return NewEngine(exec.StoreCatalog(db))
}

// A narrow time window over a part sorted by _time reads only the rows
// around the window (rowsExamined shows it) and answers exactly what a
// row-by-row filter answers, at every edge; a part whose times are not
// sorted is filtered row by row, with the same answers.
func TestNarrowTimeWindow(t *testing.T) {
	const n = 5000
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sorted := timesDB(t, n, t0, func(i int) int { return (i * 7919) % n }, true)
	shuffled := timesDB(t, n, t0, func(i int) int { return (i * 7919) % n }, false)
	at := func(s int) string { return t0.Add(time.Duration(s) * time.Second).Format(time.RFC3339) }
	for _, w := range [][2]int{{0, 1}, {100, 400}, {64, 128}, {63, 129}, {4990, 6000}, {-50, 10}, {2500, 2500}, {7000, 8000}} {
		q := fmt.Sprintf("logs | where _time >= datetime(%s) and _time < datetime(%s) | summarize count(), sum(i)", at(w[0]), at(w[1]))
		lo, hi := max(w[0], 0), min(w[1], n)
		wantCount, wantSum := int64(max(hi-lo, 0)), int64(0)
		for i := lo; i < hi; i++ {
			wantSum += int64(i)
		}
		for name, e := range map[string]*Engine{"sorted": sorted, "shuffled": shuffled} {
			r := mustQuery(t, e, q, func(r *exec.Request) { r.DisableCache = true })
			if got := r.Value(0, 0); got != wantCount {
				t.Errorf("%s %v: count %v, want %d", name, w, got, wantCount)
			}
			if got := r.Value(0, 1); wantCount > 0 && got != wantSum {
				t.Errorf("%s %v: sum %v, want %d", name, w, got, wantSum)
			}
			if name == "sorted" && w == [2]int{100, 400} && r.Stats.RowsExamined > 400 {
				t.Errorf("the sorted part examined %d rows for a 300-row window", r.Stats.RowsExamined)
			}
			if name == "shuffled" && w == [2]int{100, 400} && r.Stats.RowsExamined != n {
				t.Errorf("the shuffled part examined %d rows, want all %d", r.Stats.RowsExamined, n)
			}
		}
	}
}
