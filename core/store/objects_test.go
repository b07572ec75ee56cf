//go:build !js

package store

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
)

func objOpts(objs ObjectStore) Options {
	return Options{Objects: objs, NoSync: true, FlushRows: 1000, SealRows: 500,
		CompactInterval: time.Hour, FlushInterval: time.Hour}
}

func mustObjDB(t *testing.T, dir string, opts Options) *DB {
	t.Helper()
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// Blocks go to the bucket and the data directory keeps only the WAL; a
// restart with an empty directory (a lost disk after the flush) finds
// every flushed event in the catalog.
func TestObjectsFlushAndReopen(t *testing.T) {
	objs := NewMemObjects()
	dir := t.TempDir()
	db := mustObjDB(t, dir, objOpts(objs))
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	rows := mixedRows(1200, 1e18)
	want := eventsOfRows(rows)
	if _, err := ds.Append(rows); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	blocks, cats := countKeys(objs)
	if blocks == 0 || cats < 2 {
		t.Fatalf("bucket holds %d blocks and %d catalog versions: %v", blocks, cats, objs.Keys())
	}
	s := ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, fresh := range []string{dir, t.TempDir()} {
		db = mustObjDB(t, fresh, objOpts(objs))
		ds, err = db.Get("logs")
		if err != nil {
			t.Fatal(err)
		}
		s = ds.Snapshot()
		sameEvents(t, snapshotEvents(t, s), want)
		s.Release()
		db.Close()
	}
}

// A query reads only the columns it needs: one ranged GET of exactly that
// column's bytes per block, never the whole block.
func TestObjectsRangedReads(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	defer db.Close()
	ds, _ := db.Create("logs")
	if _, err := ds.Append(mixedRows(900, 1e18)); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	s := ds.Snapshot()
	defer s.Release()
	objs.Gets, objs.GetByte = 0, 0
	var want int64
	for _, p := range s.Parts {
		bp := p.(*blockPart)
		for _, c := range bp.idx.cols {
			if c.key.Name == "dur" {
				want += int64(c.size)
			}
		}
		if _, err := p.ReadColumn(ColKey{Name: "dur", Type: 3}); err != nil {
			t.Fatal(err)
		}
	}
	if objs.Gets != int64(len(s.Parts)) || objs.GetByte != want {
		t.Fatalf("reading one column of %d blocks made %d GETs of %d bytes, want %d of %d",
			len(s.Parts), objs.Gets, objs.GetByte, len(s.Parts), want)
	}
}

// An ingest node that dies after uploading a block and before the catalog
// names it loses nothing and duplicates nothing: the WAL still holds the
// rows, and the orphaned object is swept after the grace period.
func TestObjectsCrashBetweenUploadAndCatalog(t *testing.T) {
	objs := NewMemObjects()
	dir := t.TempDir()
	opts := objOpts(objs)
	db := mustObjDB(t, dir, opts)
	ds, _ := db.Create("logs")
	rows := mixedRows(800, 1e18)
	want := eventsOfRows(rows)
	if _, err := ds.Append(rows); err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	objs.Fail = func(op, key string) error {
		if down.Load() && op == "put" && strings.Contains(key, "/catalog/") {
			return errors.New("injected: catalog write lost")
		}
		return nil
	}
	down.Store(true)
	if err := ds.Flush(); err == nil {
		t.Fatal("flush succeeded although the catalog write failed")
	}
	// The process dies here: no Close (it would flush).
	down.Store(false)
	db.unlock()
	opts.Grace = time.Nanosecond
	db2 := mustObjDB(t, dir, opts)
	defer db2.Close()
	ds2, err := db2.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	s := ds2.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	if err := ds2.Flush(); err != nil {
		t.Fatal(err)
	}
	s = ds2.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	// The flush's commit started a sweep; the first upload is named by no
	// version and older than the grace period.
	f := ds2.files.(*objFiles)
	f.mu.Lock()
	cat := f.cat
	f.mu.Unlock()
	f.sweep(cat)
	named := map[string]bool{}
	for _, b := range cat.Blocks {
		named[b.Key] = true
	}
	for _, k := range objs.Keys() {
		if strings.Contains(k, "/blocks/") && !named[k] {
			t.Errorf("orphaned block %s survived the sweep", k)
		}
	}
}

// A query node sees what the ingest node publishes, follows compaction,
// and a snapshot taken before a compaction stays readable through the
// grace period.
func TestObjectsRemoteReader(t *testing.T) {
	objs := NewMemObjects()
	opts := objOpts(objs)
	db := mustObjDB(t, t.TempDir(), opts)
	defer db.Close()
	ds, _ := db.Create("logs")
	var want []event
	for i := 0; i < 4; i++ {
		rows := mixedRows(600, 1e18+int64(i)*1e12)
		want = append(want, eventsOfRows(rows)...)
		if _, err := ds.Append(rows); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	ro, rds := openReader(t, objs)
	old := rds.Snapshot()
	defer old.Release()
	sameEvents(t, snapshotEvents(t, old), want)
	if _, err := rds.Append(mixedRows(1, 0)); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("append on a query node: %v, want ErrReadOnly", err)
	}
	if _, err := ro.Create("x"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("create on a query node: %v, want ErrReadOnly", err)
	}
	before := len(old.Parts)
	ds.lastAppend.Store(0) // idle: full-size blocks are merged too
	ds.compact()
	if err := ro.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	now := rds.Snapshot()
	defer now.Release()
	if len(now.Parts) >= before {
		t.Fatalf("after compaction the query node sees %d blocks, before %d", len(now.Parts), before)
	}
	sameEvents(t, snapshotEvents(t, now), want)
	sameEvents(t, snapshotEvents(t, old), want) // the replaced objects are still there
	if _, err := db.Create("other"); err != nil {
		t.Fatal(err)
	}
	if err := db.Delete("logs"); err != nil {
		t.Fatal(err)
	}
	if err := ro.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Get("logs"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted dataset still served: %v", err)
	}
	if _, err := ro.Get("other"); err != nil {
		t.Fatalf("new dataset not seen: %v", err)
	}
}

// An unreachable bucket fails the flush loudly and keeps the rows in the
// WAL and the buffer, where queries still see them.
func TestObjectsBucketDownKeepsRows(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	defer db.Close()
	ds, _ := db.Create("logs")
	objs.Fail = func(op, key string) error {
		if op == "put" {
			return errors.New("injected: bucket unreachable")
		}
		return nil
	}
	rows := mixedRows(700, 1e18)
	if _, err := ds.Append(rows); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("flush with the bucket down: %v", err)
	}
	s := ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), eventsOfRows(rows))
	s.Release()
	objs.Fail = nil
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	s = ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), eventsOfRows(rows))
	s.Release()
}

func TestColumnsCodecRoundTrip(t *testing.T) {
	r := mixedRows(300, 1e18)
	b, err := EncodeColumns([]byte("x"), r.Cols, r.N)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, "tail"...)
	cols, n, rest, err := DecodeColumns(b[1:])
	if err != nil || n != r.N || string(rest) != "tail" || len(cols) != len(r.Cols) {
		t.Fatalf("decode: %v n=%d rest=%q cols=%d", err, n, rest, len(cols))
	}
	for i, c := range cols {
		for j := 0; j < n; j++ {
			if !testutil.SameValue(c.Value(j), r.Cols[i].Value(j)) {
				t.Fatalf("column %d row %d: %v, want %v", i, j, c.Value(j), r.Cols[i].Value(j))
			}
		}
	}
	enc := b[1 : len(b)-len("tail")]
	for cut := 0; cut < len(enc); cut++ {
		if _, _, _, err := DecodeColumns(enc[:cut]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", cut, len(enc))
		}
	}
}
