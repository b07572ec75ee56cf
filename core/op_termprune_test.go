package core

import (
	"context"
	"fmt"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// termDB holds one dataset of four blocks whose messages each carry one
// rare word, with term filters.
func termDB(t *testing.T) *store.DB {
	db := stillMemoryStore()
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
			msg := fmt.Sprintf("GET /api/items/%d took %dms", i%40, i%50)
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
	e := NewEngine(exec.StoreCatalog(termDB(t)))
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
		r, err := e.Query(context.Background(), &exec.Request{APL: c.apl, DisableCache: true})
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

// granuleDB holds one block of 6.5 granules of messages in which rare
// words sit in known granules.
func granuleDB(t *testing.T, at map[int]string) *Engine {
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	b := store.NewRowsBuilder()
	for i := 0; i < 6*exec.TermGranuleRows+4000; i++ {
		b.Begin()
		b.SetTime(int64(i) * 1e9)
		msg := fmt.Sprintf("GET /api/items/%d took %dms", i%977, i%50)
		if i%4 == 0 { // a request id now and then, as log lines have
			msg += fmt.Sprintf(" req_id=%x", i*7919)
		}
		if w, ok := at[i]; ok {
			msg += " " + w
		}
		b.SetString("message", msg)
		b.End(0)
	}
	if _, err := ds.Append(b.Finish(0)); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	return NewEngine(exec.StoreCatalog(db))
}

// Inside a block that holds a rare word, only the granules whose filters
// may hold it are read (rowsExamined), through where, search and `*`,
// and/or combinations and a narrow time window, with the answers a full
// scan gives. A Bloom filter may let a granule through that lacks the
// word (about 2% of them), so a test allows one granule more than those
// that hold it, never one less.
func TestTermFiltersSkipGranules(t *testing.T) {
	g := exec.TermGranuleRows
	e := granuleDB(t, map[int]string{5: "deadlock", 3*g + 1: "deadlock", 3*g + 2: "livelock deadlock", 6*g + 100: "livelock"})
	cases := []struct {
		apl      string
		count    int64
		examined int64
	}{
		{"['logs'] | where message has 'deadlock' | count", 3, 2 * int64(g)},
		{"['logs'] | search 'deadlock' | count", 3, 2 * int64(g)},
		{"['logs'] | where * has 'deadlock' | count", 3, 2 * int64(g)},
		{"['logs'] | where message has 'livelock' | count", 2, int64(g) + 4000},
		{"['logs'] | where message has 'livelock' and message has 'deadlock' | count", 1, int64(g)},
		{"['logs'] | where message has 'livelock' or message has 'deadlock' | count", 4, 2*int64(g) + 4000},
		{"['logs'] | where message has 'absentword' | count", 0, 0},
		{"['logs'] | where message has 'took' | count", int64(6*g + 4000), int64(6*g + 4000)},
		{fmt.Sprintf("['logs'] | where _time >= datetime(1970-01-01T00:00:00Z) + %ds and message has 'deadlock' | count", 3*g), 2, int64(g)},
	}
	for _, c := range cases {
		r := mustQuery(t, e, c.apl, func(r *exec.Request) { r.DisableCache = true })
		if got := r.Value(0, 0); got != c.count {
			t.Errorf("%s: count %v, want %d", c.apl, got, c.count)
		}
		if got := r.Stats.RowsExamined; got < c.examined || got > c.examined+int64(g) {
			t.Errorf("%s: %d rows examined, want %d (or one granule more)", c.apl, got, c.examined)
		}
	}
}
