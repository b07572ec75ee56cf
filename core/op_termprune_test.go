package core

import (
	"context"
	"fmt"
	"testing"

	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// termDB holds one dataset of four blocks whose messages each carry one
// rare word, with term filters.
func termDB(t *testing.T) *store.DB {
	db := store.OpenMemory(store.Options{NoSync: true, SealTermFilters: true})
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	for blk := 0; blk < 4; blk++ {
		b := store.NewRowsBuilder()
		for i := 0; i < 500; i++ {
			b.Begin()
			b.SetTime(int64(blk*1000+i) * 1e9)
			msg := fmt.Sprintf("GET /api/items/%d took %dms", i, i%50)
			if i == 7 {
				msg = fmt.Sprintf("panic: zebra%d stack overflow", blk)
			}
			b.SetString("message", msg)
			b.SetInt("n", int64(i))
			b.End(0)
		}
		if _, err := ds.Append(b.Finish(0)); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// A rare word reads only the block that holds it; the answers are the
// ones a full scan gives.
func TestTermFiltersSkipBlocks(t *testing.T) {
	e := NewEngine(StoreCatalog(termDB(t)))
	cases := []struct {
		apl     string
		count   int64
		scanned int64 // blocks read (status.blocksMatched; blocksExamined counts the skipped too)
	}{
		{"['logs'] | where message has 'zebra2' | count", 1, 1},
		{"['logs'] | where message has_cs 'zebra2' | count", 1, 1},
		{"['logs'] | where message has 'ZEBRA3' or message has 'zebra1' | count", 2, 2},
		{"['logs'] | where message has 'zebra9' | count", 0, 0},
		{"['logs'] | where message has 'panic: zebra0' | count", 1, 1},
		{"['logs'] | where message has 'took' | count", 1996, 4},
		{"['logs'] | where message has 'zebra1' and n > 3 | count", 1, 1},
		{"['logs'] | where not(message has 'zebra1') | count", 1999, 4},
		{"['logs'] | where message contains 'zebra1' | count", 1, 4},
		{"search 'zebra3' | count", 1, 1},
		{"['logs'] | where * has 'zebra0' | count", 1, 1},
	}
	for _, c := range cases {
		r, err := e.Query(context.Background(), &Request{APL: c.apl, DisableCache: true})
		if err != nil {
			t.Fatalf("%s: %v", c.apl, err)
		}
		st := render.Tabular(r).Status
		if got := r.Value(0, 0); got != c.count {
			t.Errorf("%s = %v, want %d", c.apl, got, c.count)
		}
		if st.BlocksMatched != c.scanned {
			t.Errorf("%s read %d blocks, want %d", c.apl, st.BlocksMatched, c.scanned)
		}
	}
	_ = vector.String
}
