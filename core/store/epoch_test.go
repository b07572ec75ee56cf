//go:build !js

package store

import (
	"testing"
	"time"
)

// TestEventsBeforeEpochSurvive: an acknowledged event dated before 1970
// (a negative _time) stays through a flush, a compaction and a restart.
// A trimBefore of 0 means "never trimmed"; it was read as a cut at 1970,
// so a flush dropped such events without a word.
func TestEventsBeforeEpochSurvive(t *testing.T) {
	dir := t.TempDir()
	opts := Options{SealRows: 100, FlushRows: 400, FlushInterval: time.Hour, CompactInterval: time.Hour}
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := db.Create("old")
	if err != nil {
		t.Fatal(err)
	}
	var want []event
	for _, base := range []int64{
		time.Date(1960, 5, 1, 0, 0, 0, 0, time.UTC).UnixNano(),
		time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixNano(),
	} {
		r := mixedRows(50, base)
		want = append(want, eventsOfRows(r)...)
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, ds *Dataset) {
		t.Helper()
		s := ds.Snapshot()
		defer s.Release()
		if got := snapshotEvents(t, s); len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d", when, len(got), len(want))
		}
		sameEvents(t, snapshotEvents(t, s), want)
	}
	check("buffered", ds)
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	check("flushed", ds)
	ds.lastAppend.Store(time.Now().Add(-2 * time.Hour).UnixNano())
	ds.compact()
	check("compacted", ds)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err = db.Get("old")
	if err != nil {
		t.Fatal(err)
	}
	check("reopened", ds)
}

// TestTrimBeforeEpoch: a trim whose cut-off is before 1970 still trims the
// events before it (the first trim of a dataset was ignored when its
// cut-off was negative).
func TestTrimBeforeEpoch(t *testing.T) {
	db, err := Open(t.TempDir(), Options{FlushInterval: time.Hour, CompactInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err := db.Create("old")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(mixedRows(20, time.Date(1950, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())); err != nil {
		t.Fatal(err)
	}
	keep := mixedRows(20, time.Date(1965, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	if _, err := ds.Append(keep); err != nil {
		t.Fatal(err)
	}
	changed, err := ds.Trim(time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	if err != nil || !changed {
		t.Fatalf("Trim to 1960: changed %v, err %v; want a trim", changed, err)
	}
	s := ds.Snapshot()
	defer s.Release()
	sameEvents(t, snapshotEvents(t, s), eventsOfRows(keep))
}
