package core

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/store"
)

// eventsDB holds datasets of n events each, one second apart ending at
// fixtureNow, flushed to blocks; event i has n = i and k = i % 10.
func eventsDB(t *testing.T, sizes map[string]int) *store.DB {
	t.Helper()
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	for name, n := range sizes {
		appendEvents(t, db, name, 0, n)
	}
	return db
}

// appendEvents adds events from..to-1 to dataset name (created when
// missing) and flushes them to a block.
func appendEvents(t *testing.T, db *store.DB, name string, from, to int) {
	t.Helper()
	ds, err := db.Get(name)
	if err != nil {
		if ds, err = db.Create(name); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for i := from; i < to; i++ {
		ts := fixtureNow.Add(-time.Duration(100000-i) * time.Second).Format(time.RFC3339Nano)
		fmt.Fprintf(&b, `{"_time":%q,"n":%d,"k":"k%d"}`+"\n", ts, i, i%10)
	}
	rb := store.NewRowsBuilder()
	if res, err := ingest.Decode([]byte(b.String()), ingest.Options{Format: ingest.NDJSON, Now: fixtureNow.UnixNano()}, rb); err != nil || res.Failed > 0 {
		t.Fatalf("ingest: %v %+v", err, res.Failures)
	}
	if _, err := ds.Append(rb.Finish(fixtureNow.UnixNano())); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
}

// hasCode reports whether o carries a message with code.
func hasCode(o *output.Output, code string) bool {
	for _, m := range o.Messages {
		if m.Code == code {
			return true
		}
	}
	return false
}

// An explicit take, limit or top is honoured whatever its size; the
// default of 1000 applies only when neither the query nor the request
// sets a limit, and the answer then says so.
func TestRowLimits(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(eventsDB(t, map[string]int{"big": 6000, "small": 3000, "tiny": 500})))
	cases := []struct {
		q        string
		mod      func(*exec.Request)
		rows     int
		warn     bool
		partial  bool
		newestAt int // the n of the first row, -1 to skip
	}{
		{q: "['big'] | take 5000", rows: 5000, newestAt: -1},
		{q: "['small'] | take 5000", rows: 3000, newestAt: 2999},
		{q: "['big'] | limit 5000", rows: 5000, newestAt: -1},
		{q: "['big'] | sort by _time desc | take 5000", rows: 5000, newestAt: 5999},
		{q: "['big'] | sort by n asc | take 5000", rows: 5000, newestAt: 0},
		{q: "['big'] | top 5000 by n", rows: 5000, newestAt: 5999},
		{q: "['big'] | where n >= 100 | project n, _time | take 5000", rows: 5000, newestAt: -1},
		{q: "['big']", rows: 1000, warn: true, newestAt: 5999},
		{q: "['big'] | where k == 'k1'", rows: 600, newestAt: 5991},
		{q: "['big'] | sort by n asc", rows: 1000, warn: true, newestAt: 0},
		{q: "['big'] | sample 0.99", rows: 1000, warn: true, newestAt: -1},
		{q: "['tiny']", rows: 500, newestAt: 499},
		// A take before mv-expand is the query's own limit: no default.
		{q: "['small'] | take 1500 | extend a = pack_array(1, 2) | mv-expand a", rows: 3000, newestAt: -1},
		{q: "['big'] | summarize count() by n", rows: 6000, newestAt: -1},
		// The request's limit caps the query's; it is asked for, so
		// no warning.
		{q: "['big'] | take 5000", mod: func(r *exec.Request) { r.DefaultLimit = 200 }, rows: 200, newestAt: -1},
		{q: "['big']", mod: func(r *exec.Request) { r.DefaultLimit = 2500 }, rows: 2500, newestAt: 5999},
		// The server's maximum cuts what the query asked for: partial.
		{q: "['big'] | take 5000", mod: func(r *exec.Request) { r.MaxRows = 2500 }, rows: 2500, partial: true, newestAt: -1},
		{q: "['big'] | take 2500", mod: func(r *exec.Request) { r.MaxRows = 2500 }, rows: 2500, newestAt: -1},
		// No cap at all (the command line).
		{q: "['big']", mod: func(r *exec.Request) { r.DefaultLimit = -1 }, rows: 6000, newestAt: 5999},
	}
	for _, c := range cases {
		req := &exec.Request{APL: c.q, Now: fixtureNow, DisableCache: true}
		if c.mod != nil {
			c.mod(req)
		}
		o, err := e.Query(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if o.NumRows() != c.rows || hasCode(o, "default_limit_warning") != c.warn || o.Partial != c.partial {
			t.Errorf("%s (%+v): %d rows, warning %v, partial %v; want %d, %v, %v (messages %+v)",
				c.q, req.DefaultLimit, o.NumRows(), hasCode(o, "default_limit_warning"), o.Partial, c.rows, c.warn, c.partial, o.Messages)
			continue
		}
		if c.newestAt >= 0 {
			names, _ := o.Columns()
			for j, n := range names {
				if n == "n" && o.Value(0, j) != int64(c.newestAt) {
					t.Errorf("%s: first row n = %v, want %d", c.q, o.Value(0, j), c.newestAt)
				}
			}
		}
	}
}
