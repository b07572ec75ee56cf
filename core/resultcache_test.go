package core

import (
	"context"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
)

// A repeated query over blocks is served from the result cache with the
// same answer; new data, the clock or disableCache make it recompute.
func TestResultCache(t *testing.T) {
	db := fixtureDB(t, 2, true)
	e := NewEngine(exec.StoreCatalog(db))
	run := func(q string, disable bool) (*output.Output, int) {
		r, err := e.Query(context.Background(), &exec.Request{APL: q, DisableCache: disable})
		if err != nil {
			t.Fatal(err)
		}
		return r, render.Tabular(r).Status.CacheStatus
	}
	q := "logs | summarize count() by method"
	a, s1 := run(q, false)
	b, s2 := run(q, false)
	if s1 != output.Computed || s2 != output.CacheHit || stableJSON(a) != stableJSON(b) {
		t.Fatalf("want computed then hit with equal answers, got %d, %d", s1, s2)
	}
	if _, s := run(q, true); s != output.Computed {
		t.Errorf("disableCache: got status %d", s)
	}
	if _, s := run("logs | where _time > ago(1000d) | count", false); s != output.Computed {
		t.Errorf("first clock query: %d", s)
	}
	if _, s := run("logs | where _time > ago(1000d) | count", false); s != output.Computed {
		t.Errorf("a query reading the clock must not be cached, got %d", s)
	}
	// New events land in the buffer: the query must see them.
	ds, _ := db.Get("logs")
	rb := store.NewRowsBuilder()
	if _, err := ingest.Decode([]byte(`{"method":"PATCH"}`), ingest.Options{Format: ingest.NDJSON}, rb); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(rb.Finish(0)); err != nil {
		t.Fatal(err)
	}
	c, s3 := run(q, false)
	if s3 != output.Computed || c.NumRows() != a.NumRows()+1 {
		t.Errorf("after ingest: status %d, %d groups (before %d)", s3, c.NumRows(), a.NumRows())
	}
}

// Redefining a virtual field changes the answer over the same blocks, so
// the result cache must not serve the old one.
func TestResultCacheVirtualFields(t *testing.T) {
	db := fixtureDB(t, 2, true)
	e := NewEngine(exec.StoreCatalog(db))
	q := "logs | summarize max(v)"
	run := func(expr string) any {
		r, err := e.Query(context.Background(), &exec.Request{APL: q,
			VirtualFields: map[string][]exec.VirtualField{"logs": {{Name: "v", Expression: expr}}}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Value(0, 0)
	}
	one, two := run("1"), run("2")
	if one == two {
		t.Errorf("v = 1 and v = 2 both answered %v: the second came from the cache", one)
	}
}

// cached runs q with the result cache on and reports the answer and
// whether it came from the cache.
func cached(t *testing.T, e *Engine, q string, mod ...func(*exec.Request)) (*output.Output, bool) {
	t.Helper()
	req := &exec.Request{APL: q, Now: fixtureNow}
	for _, m := range mod {
		m(req)
	}
	o, err := e.Query(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return o, o.CacheStatus == output.CacheHit
}

// A join's right side is part of the key: after the dataset it reads is
// deleted and created again with other events, the join answers them.
func TestResultCacheJoinRightSide(t *testing.T) {
	db := eventsDB(t, map[string]int{"alpha": 100, "beta": 50})
	e := NewEngine(exec.StoreCatalog(db))
	q := "['alpha'] | join kind=inner (['beta'] | project n, m = n * 10) on n | summarize count(), sum(m)"
	first, _ := cached(t, e, q)
	if _, hit := cached(t, e, q); !hit {
		t.Fatal("the repeated join was not served from the cache")
	}
	if err := db.Delete("beta"); err != nil {
		t.Fatal(err)
	}
	appendEvents(t, db, "beta", 60, 90)
	o, hit := cached(t, e, q)
	if hit || o.Value(0, 0) != int64(30) || o.Value(0, 1) != int64(10*(60+89)*30/2) {
		t.Errorf("after beta was re-created: cache hit %v, count %v sum %v (first answer %v %v)",
			hit, o.Value(0, 0), o.Value(0, 1), first.Value(0, 0), first.Value(0, 1))
	}
}

// Paging with the cursor walks forward through every event once while
// the cache is on: the cursor is part of the key.
func TestResultCacheCursorPaging(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(eventsDB(t, map[string]int{"big": 2500})))
	seen := map[any]bool{}
	cursor := ""
	for page := 0; page < 5; page++ {
		var o *output.Output
		for run := range 2 { // the second run of a page is a hit with the same rows
			var hit bool
			o, hit = cached(t, e, "['big'] | project n, _time", func(r *exec.Request) { r.Cursor = cursor })
			if page < 3 && (o.NumRows() == 0 || hit != (run == 1)) {
				t.Fatalf("page %d, run %d: %d rows, cache hit %v, after %d events", page, run, o.NumRows(), hit, len(seen))
			}
			for i := range o.NumRows() {
				seen[o.Value(i, 0)] = true
			}
		}
		if o.NumRows() > 0 {
			cursor = o.Stats.MinCursor
		}
	}
	if len(seen) != 2500 {
		t.Errorf("paging saw %d distinct events of 2500", len(seen))
	}
	// includeCursor asks for the boundary row again: another answer.
	first, _ := cached(t, e, "['big'] | project n, _time")
	cursor = first.Stats.MinCursor
	without, _ := cached(t, e, "['big'] | project n, _time", func(r *exec.Request) { r.Cursor = cursor })
	with, hit := cached(t, e, "['big'] | project n, _time", func(r *exec.Request) { r.Cursor, r.IncludeCursor = cursor, true })
	last := first.Value(first.NumRows()-1, 0)
	if hit || with.Value(0, 0) != last || without.Value(0, 0) == last {
		t.Errorf("includeCursor: hit %v, first rows %v and %v without, boundary %v", hit, with.Value(0, 0), without.Value(0, 0), last)
	}
}

// Two callers who may read different datasets never share an answer,
// even for a query whose main source both may read.
func TestResultCachePermissions(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(eventsDB(t, map[string]int{"main": 20, "side1": 20, "side2": 20})))
	q := "['main'] | join kind=inner (['side*']) on n | count"
	all := func(r *exec.Request) { r.Allowed = func(string) bool { return true } }
	one := func(r *exec.Request) { r.Allowed = func(ds string) bool { return ds != "side2" } }
	a, _ := cached(t, e, q, all)
	b, hit := cached(t, e, q, one)
	if hit || a.Value(0, 0) == b.Value(0, 0) {
		t.Errorf("the caller without side2 got hit %v, %v rows (the other %v)", hit, b.Value(0, 0), a.Value(0, 0))
	}
}

// A query whose answer varies between runs is never served from the
// cache, however the call is spelled.
func TestResultCacheVolatile(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(eventsDB(t, map[string]int{"big": 3000})))
	for _, q := range []string{
		"['big'] | sample 0.5 | count",
		"['big'] | extend r = rand() | where r < 0.5 | count",
		"['big'] | where _time > now  (-100000d) | count",
		"let t = ago(1d); ['big'] | where _time < t | count",
		"['big'] | summarize count() by k | extend at = now()",
	} {
		for i := range 2 {
			if _, hit := cached(t, e, q); hit {
				t.Errorf("run %d of %s came from the cache", i+1, q)
			}
		}
	}
	if _, hit := cached(t, e, "['big'] | summarize count() by k"); hit {
		t.Error("the first run was a hit")
	}
	if _, hit := cached(t, e, "['big'] | summarize count() by k"); !hit {
		t.Error("a plain summarize is no longer cached")
	}
}

// A partial answer is computed again on the next run, never kept: what
// left rows out may not hold then.
func TestResultCacheSkipsPartial(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(eventsDB(t, map[string]int{"big": 3000})))
	capped := func(r *exec.Request) { r.MaxRows = 2000 }
	for run := range 2 {
		o, hit := cached(t, e, "['big'] | take 2500", capped)
		if !o.Partial || hit {
			t.Errorf("run %d: partial %v, cache hit %v", run+1, o.Partial, hit)
		}
	}
}
