//go:build !js

package store

import (
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fullDisk fails WAL writes and syncs the way a full disk does: a write
// stores part of its bytes, then ENOSPC.
type fullDisk struct {
	full     atomic.Bool
	syncFail atomic.Bool // the write lands but fsync fails (delayed allocation)
	cutFail  atomic.Int32
}

type fullDiskFile struct {
	walFile
	d *fullDisk
}

func (f fullDiskFile) Write(b []byte) (int, error) {
	if f.d.full.Load() {
		n, _ := f.walFile.Write(b[:len(b)/2])
		return n, &os.PathError{Op: "write", Path: "/data/logs/wal/x.wal", Err: syscall.ENOSPC}
	}
	return f.walFile.Write(b)
}

func (f fullDiskFile) Sync() error {
	if f.d.syncFail.Load() {
		return &os.PathError{Op: "sync", Path: "/data/logs/wal/x.wal", Err: syscall.ENOSPC}
	}
	return f.walFile.Sync()
}

func (f fullDiskFile) Truncate(n int64) error {
	if f.d.cutFail.Load() > 0 {
		f.d.cutFail.Add(-1)
		return &os.PathError{Op: "truncate", Path: "/data/logs/wal/x.wal", Err: syscall.EIO}
	}
	return f.walFile.Truncate(n)
}

// A full disk refuses appends with ErrNoSpace, stores nothing of them,
// and once space is back the next append succeeds without a restart.
// After a crash exactly the acknowledged events come back (none of the
// refused ones, none twice) and nothing is reported damaged.
func TestDiskFullRecoversWithoutRestart(t *testing.T) {
	dir := t.TempDir()
	disk := &fullDisk{}
	opts := Options{CompactInterval: time.Hour, FlushInterval: time.Hour, IdleFlush: time.Hour,
		wrapWAL: func(f walFile) walFile { return fullDiskFile{f, disk} }}
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := db.Create("logs")
	var want []event
	batch := 0
	appendOK := func() {
		t.Helper()
		batch++
		r := mixedRows(10, int64(batch)*1e16)
		if _, err := ds.Append(r); err != nil {
			t.Fatalf("append %d: %v", batch, err)
		}
		want = append(want, eventsOfRows(r)...)
	}
	appendFull := func(what string) {
		t.Helper()
		batch++
		_, err := ds.Append(mixedRows(10, int64(batch)*1e16))
		if !errors.Is(err, ErrNoSpace) {
			t.Fatalf("%s: append on a full disk: %v", what, err)
		}
	}
	appendOK()
	appendOK()
	disk.full.Store(true)
	appendFull("write")
	appendFull("write again")
	if err := ds.Flush(); err != nil { // blocks are on the real disk; the WAL rotation fails
		t.Fatalf("flush: %v", err)
	}
	appendFull("after a flush")
	disk.full.Store(false)
	disk.syncFail.Store(true)
	appendFull("sync")
	disk.syncFail.Store(false)
	appendOK()
	disk.cutFail.Store(2) // the undo of the failed write fails too, then succeeds
	disk.full.Store(true)
	appendFull("write, undo failing")
	disk.full.Store(false)
	batch++
	if _, err := ds.Append(mixedRows(10, int64(batch)*1e16)); err == nil {
		t.Fatal("an append went through while the failed write could not be undone")
	}
	appendOK() // space is back and the undo succeeds: no restart needed
	appendOK()
	checkEvents(t, ds, want)
	crash(db)
	db, ds = openOne(t, dir)
	defer db.Close()
	checkEvents(t, ds, want)
	s := ds.Snapshot()
	defer s.Release()
	if len(s.Damaged) != 0 {
		t.Errorf("a full disk left damage after restart: %+v", s.Damaged)
	}
	if probs, _ := Check(dir, nil); len(probs) != 0 {
		t.Errorf("check: %+v", probs)
	}
	if strings.Contains(ErrNoSpace.Error(), dir) {
		t.Errorf("ErrNoSpace names the directory")
	}
}

// A DB opened on a full disk opens (its data stays queryable), refuses
// appends while the disk is full, and takes them once space is back.
func TestOpenOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	disk := &fullDisk{}
	opts := Options{CompactInterval: time.Hour, FlushInterval: time.Hour, IdleFlush: time.Hour,
		wrapWAL: func(f walFile) walFile { return fullDiskFile{f, disk} }}
	db, ds := openOne(t, dir)
	r := mixedRows(10, 1e16)
	want := eventsOfRows(r)
	ds.Append(r)
	crash(db)
	disk.full.Store(true)
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("open on a full disk: %v", err)
	}
	ds, _ = db.Get("logs")
	checkEvents(t, ds, want)
	if _, err := ds.Append(mixedRows(10, 2e16)); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("append on a full disk: %v", err)
	}
	disk.full.Store(false)
	r = mixedRows(10, 3e16)
	if _, err := ds.Append(r); err != nil {
		t.Fatalf("append once space is back: %v", err)
	}
	want = append(want, eventsOfRows(r)...)
	crash(db)
	db, ds = openOne(t, dir)
	defer db.Close()
	checkEvents(t, ds, want)
}
