//go:build !js

package store

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestFlushWritesSealedBlocksAsIs: a flush writes each sealed heap block
// to its own file without re-encoding, compaction leaves those full-size
// blocks alone while appends keep coming, and merges them once the
// dataset is idle, all without losing or reordering an event.
func TestFlushWritesSealedBlocksAsIs(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{SealRows: 100, FlushRows: 400, FlushInterval: time.Hour, CompactInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	var want []event
	for i := 0; i < 4; i++ {
		r := mixedRows(100, int64(i+1)*1e18)
		want = append(want, eventsOfRows(r)...)
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk"))
	if len(files) != 4 || ds.Info().NumBlocks != 4 {
		t.Fatalf("%d block files, %d blocks; want one per sealed block (4)", len(files), ds.Info().NumBlocks)
	}
	s := ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()

	ds.compact() // appends just came: full-size blocks stay
	if n := ds.Info().NumBlocks; n != 4 {
		t.Fatalf("busy compaction merged full-size blocks: %d blocks", n)
	}
	ds.lastAppend.Store(time.Now().Add(-2 * time.Hour).UnixNano())
	ds.compact()
	if n := ds.Info().NumBlocks; n != 1 {
		t.Fatalf("idle compaction left %d blocks, want 1", n)
	}
	s = ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	if files, _ = filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk")); len(files) != 1 {
		t.Fatalf("%d block files after compaction, want 1", len(files))
	}
}

// failingBlocks fails the failAt-th block write (from 1), as a full disk
// would.
type failingBlocks struct {
	dsFiles
	calls, failAt int
}

func (f *failingBlocks) writeBlock(id uint64, data []byte) (*blockPart, error) {
	if f.calls++; f.calls == f.failAt {
		return nil, errors.New("disk full")
	}
	return f.dsFiles.writeBlock(id, data)
}

// TestFlushWriteFailureKeepsRows: when writing a sealed block fails, the
// blocks written before it are swapped in, every row stays queryable and
// in the WAL, and a later flush makes the rest durable.
func TestFlushWriteFailureKeepsRows(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{SealRows: 100, FlushRows: 1 << 20, FlushInterval: time.Hour, CompactInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	ds.files = &failingBlocks{dsFiles: ds.files, failAt: 2} // before any append: the goroutines read it after
	var want []event
	for i := 0; i < 3; i++ {
		r := mixedRows(100, int64(i+1)*1e18)
		want = append(want, eventsOfRows(r)...)
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := ds.Flush(); err == nil {
		t.Fatal("flush with a failing block write succeeded")
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk")); len(files) != 1 {
		t.Fatalf("%d block files after the failed flush, want the 1 written before the failure", len(files))
	}
	s := ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2, ds2 := openOne(t, dir)
	defer db2.Close()
	s = ds2.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
}

// TestWALLargeAndSmallRecordsReplay: payloads above walDirectWrite are
// written from where they are, between small records copied into the
// frame buffer; after a crash every one of them replays, once.
func TestWALLargeAndSmallRecordsReplay(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	var want []event
	var wg sync.WaitGroup
	batches := []*Rows{mixedRows(3, 1e18), mixedRows(6000, 2e18), mixedRows(5, 3e18), mixedRows(3000, 4e18)}
	if p, _ := encodeRows(nil, batches[1]); len(p) < walDirectWrite {
		t.Fatalf("a %d-byte payload does not exercise direct writes", len(p))
	}
	for _, r := range batches {
		want = append(want, eventsOfRows(r)...)
	}
	for _, r := range batches { // concurrent, so some share a group
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ds.Append(r); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	crash(db)
	db, ds = openOne(t, dir)
	defer db.Close()
	s := ds.Snapshot()
	defer s.Release()
	sameEvents(t, snapshotEvents(t, s), want)
}
