//go:build !js

package store

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
)

// crash stops a DB the way a killed process would leave it: acknowledged
// batches only in the WAL, nothing flushed, the lock released.
func crash(db *DB) {
	for _, d := range db.List() {
		d.shutdown(false)
	}
	db.unlock()
}

// copyDir copies the regular files of src into dst (created).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func openOne(t *testing.T, dir string) (*DB, *Dataset) {
	t.Helper()
	db, err := Open(dir, Options{CompactInterval: time.Hour, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := db.Get("logs")
	if err != nil {
		ds, err = db.Create("logs")
		if err != nil {
			t.Fatal(err)
		}
	}
	return db, ds
}

func checkEvents(t *testing.T, ds *Dataset, want []event) {
	t.Helper()
	s := ds.Snapshot()
	defer s.Release()
	sameEvents(t, snapshotEvents(t, s), want)
}

// TestRecoveryBlockWrittenWALNotRemoved replays the crash window between
// a durable block and the removal of the WAL it covers: the records must
// not come back a second time.
func TestRecoveryBlockWrittenWALNotRemoved(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	r1, r2 := mixedRows(50, 1e18), mixedRows(30, 2e18)
	if _, err := ds.Append(r1); err != nil {
		t.Fatal(err)
	}
	walDir := filepath.Join(dir, "logs", "wal")
	saved := filepath.Join(t.TempDir(), "wal")
	copyDir(t, walDir, saved)
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(r2); err != nil {
		t.Fatal(err)
	}
	crash(db)
	copyDir(t, saved, walDir) // the flushed segment "survives"
	db, ds = openOne(t, dir)
	checkEvents(t, ds, append(eventsOfRows(r1), eventsOfRows(r2)...))
	// And again after a clean close.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, ds = openOne(t, dir)
	defer db.Close()
	checkEvents(t, ds, append(eventsOfRows(r1), eventsOfRows(r2)...))
}

// TestRecoveryCompactionInputsSurvive replays a crash after a compaction
// wrote its merged block but before it deleted the inputs.
func TestRecoveryCompactionInputsSurvive(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	var want []event
	for i := 0; i < 5; i++ {
		r := mixedRows(40, int64(i+1)*1e17)
		want = append(want, eventsOfRows(r)...)
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	blockDir := filepath.Join(dir, "logs", "blocks")
	saved := filepath.Join(t.TempDir(), "blocks")
	copyDir(t, blockDir, saved)
	ds.compact()
	if n := ds.Info().NumBlocks; n != 1 {
		t.Fatalf("compaction left %d blocks, want 1", n)
	}
	checkEvents(t, ds, want)
	crash(db)
	copyDir(t, saved, blockDir) // inputs "survive" the crash
	db, ds = openOne(t, dir)
	defer db.Close()
	if n := ds.Info().NumBlocks; n != 1 {
		t.Fatalf("after recovery %d blocks, want 1", n)
	}
	checkEvents(t, ds, want)
}

// TestSnapshotOutlivesCompaction reads parts of a snapshot taken before
// compaction replaced (and unlinked) its blocks.
func TestSnapshotOutlivesCompaction(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	defer db.Close()
	var want []event
	for i := 0; i < 4; i++ {
		r := mixedRows(30, int64(i+1)*1e17)
		want = append(want, eventsOfRows(r)...)
		ds.Append(r)
		ds.Flush()
	}
	old := ds.Snapshot()
	ds.compact()
	sameEvents(t, snapshotEvents(t, old), want)
	parts := old.Parts
	old.Release()
	if _, err := parts[0].ReadColumn(timeKey); err == nil {
		t.Fatal("reading a released, replaced block succeeded")
	}
	checkEvents(t, ds, want)
}

// TestTrim drops old data from blocks and the buffer, and the bound
// survives a restart.
func TestTrim(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	old, mid, fresh := mixedRows(20, 1e17), mixedRows(20, 2e17), mixedRows(20, 3e17)
	ds.Append(old)
	ds.Flush()
	ds.Append(mid)
	ds.Append(fresh)
	cut := int64(2e17) + 10*1e6
	var want []event
	for _, e := range append(eventsOfRows(mid), eventsOfRows(fresh)...) {
		if e.time >= cut {
			want = append(want, e)
		}
	}
	queued, err := ds.Trim(cut)
	if err != nil || !queued {
		t.Fatalf("Trim = %v, %v", queued, err)
	}
	testutil.Eventually(t, 20*time.Second, func() bool { return ds.Info().NumBlocks == 0 }, "the trim left blocks")
	checkEvents(t, ds, want)
	crash(db) // mid and fresh are only in the WAL
	db, ds = openOne(t, dir)
	defer db.Close()
	checkEvents(t, ds, want)
	ds.Flush()
	checkEvents(t, ds, want)
}

// TestUnreleasedSnapshotIsCollected: a snapshot dropped without Release
// does not pin replaced block files forever (the GC cleanup unmaps them).
func TestUnreleasedSnapshotIsCollected(t *testing.T) {
	db, ds := openOne(t, t.TempDir())
	defer db.Close()
	for i := 0; i < 4; i++ {
		ds.Append(mixedRows(20, int64(i+1)*1e17))
		ds.Flush()
	}
	s := ds.Snapshot()
	m := s.Parts[0].(*blockPart).mapped
	s = nil
	ds.compact()
	testutil.Eventually(t, 20*time.Second, func() bool { runtime.GC(); return m.released.Load() },
		"mapping of a replaced block held only by a dropped snapshot was never released")
}
