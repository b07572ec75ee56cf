//go:build !js

package store

import (
	"testing"
	"time"
)

// An ingest that stops is flushed and compacted within seconds, without
// waiting for FlushInterval or a restart: the WAL's raw rows do not sit on
// disk, and full-size blocks are merged once the dataset is idle.
func TestIdleFlushAndCompaction(t *testing.T) {
	db, err := Open(t.TempDir(), Options{NoSync: true, FlushInterval: time.Hour, SealRows: 100, FlushRows: 100,
		IdleFlush: 200 * time.Millisecond, CompactIdle: 300 * time.Millisecond, CompactInterval: 100 * time.Millisecond})
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
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := ds.Snapshot()
		buffered := 0
		for _, p := range s.Parts {
			if !p.Immutable() {
				buffered++
			}
		}
		blocks := len(s.Parts) - buffered
		s.Release()
		if buffered == 0 && blocks <= 2 { // from 7; a last straggler may wait for more company (minMergeBlocks)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the last append: %d buffered batches, %d blocks; want 0 and at most 2", buffered, blocks)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := ds.Info().NumEvents; n != 630 {
		t.Fatalf("%d events after compaction, want 630", n)
	}
}
