package core

import (
	"context"
	"fmt"
	"testing"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
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

// The result cache is bounded in bytes: answers are evicted oldest first
// once their columns pass the limit, and an answer too big to be worth
// caching is not kept at all.
func TestResultCacheBytes(t *testing.T) {
	answer := func(rows int) *output.Output {
		v := vector.New(vector.Int, rows)
		for i := range rows {
			v.AppendInt(int64(i))
		}
		return &output.Output{Table: output.Table{Rows: rows, Columns: []output.Column{{Name: "n", Type: vector.Int, Vec: v}}}}
	}
	size := outputBytes(answer(1000))
	c := newResultCache(size * 5)
	for i := range 8 {
		c.put(fmt.Sprint(i), answer(1000))
	}
	if c.used > c.limit {
		t.Errorf("%d bytes held, limit %d", c.used, c.limit)
	}
	if c.get("0") != nil || c.get("7") == nil {
		t.Error("want the oldest evicted and the newest kept")
	}
	c.put("big", answer(100000))
	if c.get("big") != nil {
		t.Error("an answer larger than a quarter of the cache was kept")
	}
	off := newResultCache(0)
	off.put("x", answer(1))
	if off.get("x") != nil {
		t.Error("a cache of 0 bytes kept an answer")
	}
}

// Redefining a virtual field changes the answer over the same blocks, so
// the result cache must not serve the old one.
func TestResultCacheVirtualFields(t *testing.T) {
	db := fixtureDB(t, 2, true)
	e := NewEngine(StoreCatalog(db))
	q := "logs | summarize max(v)"
	run := func(expr string) any {
		r, err := e.Query(context.Background(), &Request{APL: q,
			VirtualFields: map[string][]VirtualField{"logs": {{Name: "v", Expression: expr}}}})
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
