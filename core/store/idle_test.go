//go:build !js

package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
)

// An ingest that stops is flushed and compacted once IdleFlush and
// CompactIdle have passed by the store's clock, without waiting for
// FlushInterval or a restart: the WAL's raw rows do not sit on disk, and
// full-size blocks are merged once the dataset is idle.
func TestIdleFlushAndCompaction(t *testing.T) {
	clk := testutil.NewClock(time.Unix(1e9, 0))
	db, err := Open(t.TempDir(), Options{NoSync: true, FlushInterval: 24 * time.Hour, SealRows: 100, FlushRows: 100,
		IdleFlush: time.Hour, CompactIdle: time.Hour, CompactInterval: 50 * time.Millisecond, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, _ := db.Create("logs")
	for i := 0; i < 6; i++ {
		if _, err := ds.Append(mixedRows(100, 1e18+int64(i)*1e12)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ds.Append(mixedRows(30, 2e18)); err != nil { // stays in the buffer
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("last seen: %s", last)
		}
	}()
	testutil.Eventually(t, 20*time.Second, func() bool {
		// Time goes on while the store works: a block the flush wrote
		// after the jump is as old as the clock says, not an hour old
		// (on a loaded machine the flush can come after the jump).
		clk.Advance(time.Minute)
		s := ds.Snapshot()
		defer s.Release()
		buffered := 0
		for _, p := range s.Parts {
			if !p.Immutable() {
				buffered++
			}
		}
		blocks := len(s.Parts) - buffered
		last = fmt.Sprintf("%d buffered, %d blocks", buffered, blocks)
		for _, p := range s.Parts {
			last += fmt.Sprintf(" %d", p.Rows())
		}
		return buffered == 0 && blocks == 1 // from 7: an idle dataset merges every small block
	}, "an hour after the last append: buffered batches or too many blocks (want 0 and one block)")
	if n := ds.Info().NumEvents; n != 630 {
		t.Fatalf("%d events after compaction, want 630", n)
	}
}
