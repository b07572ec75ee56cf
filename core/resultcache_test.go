package core

import (
	"context"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/render"
	"testing"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// A repeated query over blocks is served from the result cache with the
// same answer; new data, the clock or disableCache make it recompute.
func TestResultCache(t *testing.T) {
	db := fixtureDB(t, 2, true)
	e := NewEngine(StoreCatalog(db))
	run := func(q string, disable bool) (*output.Output, int) {
		r, err := e.Query(context.Background(), &Request{APL: q, DisableCache: disable})
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
