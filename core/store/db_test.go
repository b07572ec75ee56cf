package store

import (
	"errors"
	"testing"
	"time"
)

func TestMemoryAppendSnapshotFlush(t *testing.T) {
	db := OpenMemory(Options{})
	defer db.Close()
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	r := mixedRows(500, time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	want := eventsOfRows(r)
	if _, err := ds.Append(r); err != nil {
		t.Fatal(err)
	}
	s := ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	s = ds.Snapshot()
	defer s.Release()
	if len(s.Parts) != 1 || !s.Parts[0].Immutable() {
		t.Fatalf("after flush want one block, got %d parts", len(s.Parts))
	}
	sameEvents(t, snapshotEvents(t, s), want)
	if info := ds.Info(); info.NumEvents != 500 || info.NumBlocks != 1 {
		t.Fatalf("info = %+v", info)
	}
}

func TestFileReopenKeepsEvents(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	r1, r2 := mixedRows(300, base), mixedRows(200, base+1e12)
	if _, err := ds.Append(r1); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(r2); err != nil {
		t.Fatal(err)
	}
	want := append(eventsOfRows(r1), eventsOfRows(r2)...)
	// Reopen without Close: r2 must come back from the WAL.
	ds.files.close()
	db.unlock()
	db2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	ds2, err := db2.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	s := ds2.Snapshot()
	defer s.Release()
	sameEvents(t, snapshotEvents(t, s), want)
}

func TestDatasetNames(t *testing.T) {
	db := OpenMemory(Options{})
	defer db.Close()
	for _, bad := range []string{"", "-x", "x-", ".x", "a b", "é", string(make([]byte, 81))} {
		if _, err := db.Create(bad); err == nil {
			t.Errorf("Create(%q) succeeded", bad)
		}
	}
	if _, err := db.Create("a.b_c-9"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Create("a.b_c-9"); !errors.Is(err, ErrExists) {
		t.Fatalf("second create: %v", err)
	}
	if _, err := db.Get("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	if err := db.Delete("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete: %v", err)
	}
	if err := db.Delete("a.b_c-9"); err != nil {
		t.Fatal(err)
	}
	if len(db.List()) != 0 {
		t.Fatal("list not empty after delete")
	}
}
