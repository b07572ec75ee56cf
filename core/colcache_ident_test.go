package core

import (
	"context"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// Blocks of different datasets share ids (each dataset numbers its own
// from 1), and a dataset deleted and created again reuses them: the
// decoded-column and result caches must not mistake one for another.
func TestColumnCacheKeepsDatasetsApart(t *testing.T) {
	db := stillMemoryStore()
	defer db.Close()
	load := func(name, body string) {
		t.Helper()
		ds, err := db.Get(name)
		if err != nil {
			if ds, err = db.Create(name); err != nil {
				t.Fatal(err)
			}
		}
		b := store.NewRowsBuilder()
		if _, err := ingest.Decode([]byte(body), ingest.Options{Format: ingest.NDJSON}, b); err != nil {
			t.Fatal(err)
		}
		if _, err := ds.Append(b.Finish(0)); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	load("a", `{"_time":"2024-01-01T00:00:00Z","v":1}`+"\n")
	load("b", `{"_time":"2024-01-01T00:00:00Z","v":2}`+"\n")
	e := NewEngine(exec.StoreCatalog(db))
	sum := func(apl string) any {
		t.Helper()
		r, err := e.Query(context.Background(), &exec.Request{APL: apl, DisableCache: true})
		if err != nil {
			t.Fatal(err)
		}
		return r.Value(0, 0)
	}
	if got := sum("['a'] | summarize sum(v)"); got != int64(1) {
		t.Fatalf("a: sum(v) = %v, want 1", got)
	}
	if got := sum("['b'] | summarize sum(v)"); got != int64(2) {
		t.Fatalf("b: sum(v) = %v, want 2 (served dataset a's cached column?)", got)
	}
	if err := db.Delete("a"); err != nil {
		t.Fatal(err)
	}
	load("a", `{"_time":"2024-01-01T00:00:00Z","v":7}`+"\n")
	if got := sum("['a'] | summarize sum(v)"); got != int64(7) {
		t.Fatalf("recreated a: sum(v) = %v, want 7 (stale cached column?)", got)
	}
}
