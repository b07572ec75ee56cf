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
