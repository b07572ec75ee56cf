//go:build !js

package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

// flushBatches appends n batches of rows and flushes each, one catalog
// version per flush.
func flushBatches(t *testing.T, ds *Dataset, n int, base int64) []event {
	t.Helper()
	var want []event
	for i := range n {
		r := mixedRows(50, base+int64(i)*1e12)
		want = append(want, eventsOfRows(r)...)
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// readerSees opens a query node's view of the bucket and checks that it
// holds exactly want.
func readerSees(t *testing.T, objs *MemObjects, want []event) {
	t.Helper()
	_, rds := openReader(t, objs)
	s := rds.Snapshot()
	defer s.Release()
	sameEvents(t, snapshotEvents(t, s), want)
}

// openReader opens a query node's view of the bucket (closed when the
// test ends) and its dataset logs.
func openReader(t *testing.T, objs ObjectStore) (*DB, *Dataset) {
	t.Helper()
	ro, err := OpenRemote(Options{Objects: objs, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ro.Close() })
	rds, err := ro.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	return ro, rds
}

// flushedBucket is a bucket an ingest node left after n flushes of dataset
// logs, and the events they hold.
func flushedBucket(t *testing.T, n int) (*MemObjects, []event) {
	t.Helper()
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	defer db.Close()
	ds, err := db.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	return objs, flushBatches(t, ds, n, 1e18)
}

// catalogObject reads catalog version v of ds, and its size as stored.
func catalogObject(t *testing.T, objs *MemObjects, ds string, v uint64) (catalogDoc, int) {
	t.Helper()
	b, err := objs.Get(context.Background(), catalogKey(ds, v))
	if err != nil {
		t.Fatal(err)
	}
	d, err := readCatalogDoc(context.Background(), objs, ds, v)
	if err != nil {
		t.Fatal(err)
	}
	return *d, len(b)
}

// Between checkpoints a commit writes what changed, so a version's size
// follows its flush, not the dataset; every checkpointEvery-th version
// is full; a query node cold or warm builds the writer's catalog.
func TestCatalogDeltasAndCheckpoints(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	defer db.Close()
	ds, _ := db.Create("logs")
	want := flushBatches(t, ds, 2*checkpointEvery+3, 1e18)
	f := ds.files.(*objFiles)
	newest := f.cat.Version
	if newest < 2*checkpointEvery+3 {
		t.Fatalf("%d versions for %d flushes", newest, 2*checkpointEvery+3)
	}
	var deltaSizes []int
	for v := uint64(1); v <= newest; v++ {
		d, size := catalogObject(t, objs, "logs", v)
		switch full := v == 1 || v%checkpointEvery == 0; {
		case full && d.Kind != kindFull:
			t.Fatalf("version %d is %q, want full", v, d.Kind)
		case !full && (d.Kind != kindDelta || d.Checkpoint != v/checkpointEvery*checkpointEvery && v > checkpointEvery):
			t.Fatalf("version %d is %q on checkpoint %d", v, d.Kind, d.Checkpoint)
		case !full && len(d.Blocks) > 0:
			t.Fatalf("delta %d lists the whole dataset", v)
		case !full && len(d.Add) > 0:
			deltaSizes = append(deltaSizes, size)
		}
	}
	// The dataset grew 60-fold between the first and the last deltas;
	// their size must not have.
	if first, last := deltaSizes[0], deltaSizes[len(deltaSizes)-1]; last > 2*first {
		t.Errorf("a flush's delta grew from %d to %d bytes with the dataset", first, last)
	}
	cold, rds := openReader(t, objs)
	s := rds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	if got := rds.union.cats[legacySlot]; !slices.EqualFunc(got.Blocks, f.cat.Blocks, func(a, b catalogBlock) bool { return a.Key == b.Key }) {
		t.Fatalf("reader built %d blocks, the writer has %d", len(got.Blocks), len(f.cat.Blocks))
	}

	// A warm reader reads only the deltas after the version it holds
	// (the registry entry, younger than regSettled, is read again too).
	want = append(want, flushBatches(t, ds, 3, 2e18)...)
	var catGets atomic.Int64
	objs.Fail = func(op, key string) error {
		if op == "get" && strings.Contains(key, "/catalog/") {
			catGets.Add(1)
		}
		return nil
	}
	defer func() { objs.Fail = nil }()
	if err := cold.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := catGets.Swap(0); n != 3 {
		t.Errorf("a refresh three versions behind made %d catalog GETs, want 3", n)
	}
	if err := cold.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := catGets.Load(); n != 0 {
		t.Errorf("a refresh with nothing new made %d catalog GETs", n)
	}
	s = rds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
}

// The sweep deletes old versions before the newest checkpoint, never
// the checkpoint or what builds on it, and a cold reader still builds
// the newest version afterwards.
func TestCatalogSweepKeepsCheckpoint(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	defer db.Close()
	ds, _ := db.Create("logs")
	want := flushBatches(t, ds, checkpointEvery+20, 1e18) // the checkpoint is past the newest keepVersions
	f := ds.files.(*objFiles)
	f.mu.Lock()
	cat := f.cat
	f.grace = time.Nanosecond // every version is past it now
	f.mu.Unlock()
	f.sweep(cat)
	vs, _, err := catalogVersions(context.Background(), objs, "logs")
	if err != nil {
		t.Fatal(err)
	}
	if vs[0] != min(checkpointEvery, cat.Version-keepVersions+1) || vs[len(vs)-1] != cat.Version {
		t.Fatalf("after the sweep versions %d..%d are left (newest %d, checkpoint %d)", vs[0], vs[len(vs)-1], cat.Version, cat.checkpoint)
	}
	readerSees(t, objs, want)
}

// A delta that is missing or does not fit what it builds on is
// corruption naming the version, not a catalog silently short of blocks.
func TestCatalogDamagedDeltas(t *testing.T) {
	objs, _ := flushedBucket(t, 5)
	load := func() error { _, err := loadCatalog(context.Background(), objs, "logs", nil); return err }
	if err := load(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := catalogKey("logs", 3)
	orig, _ := objs.Get(ctx, key)
	var d catalogDoc
	json.Unmarshal(orig, &d)
	for name, edit := range map[string]func(*catalogDoc){
		"block added twice": func(d *catalogDoc) { d.Add = append(d.Add, d.Add...) },
		"wrong version":     func(d *catalogDoc) { d.Version = 7 },
		"no checkpoint":     func(d *catalogDoc) { d.Checkpoint = 0 },
		"lists blocks":      func(d *catalogDoc) { d.Blocks = d.Add },
		"newer format":      func(d *catalogDoc) { d.Format = catalogFormat + 1 },
	} {
		bad := d
		bad.Add = slices.Clone(d.Add)
		edit(&bad)
		b, _ := json.Marshal(&bad)
		objs.Put(ctx, key, b)
		var ce *CorruptionError
		if err := load(); !errors.As(err, &ce) || ce.File != key {
			t.Errorf("%s: %v, want corruption of %s", name, err, key)
		}
	}
	objs.Delete(ctx, key)
	var ce *CorruptionError
	if err := load(); !errors.As(err, &ce) || ce.File != key || !strings.Contains(ce.Reason, "missing") {
		t.Errorf("missing delta: %v, want corruption of %s", err, key)
	}
}

// Term filters stay in the block object: the catalog's entry is the
// index without them, and the first query that needs them reads the
// block's index once; when that read fails the block is scanned, never
// skipped.
func TestCatalogTermFiltersStayInBlock(t *testing.T) {
	objs := NewMemObjects()
	opts := objOpts(objs)
	db := mustObjDB(t, t.TempDir(), opts)
	defer db.Close()
	ds, _ := db.Create("logs")
	flushBatches(t, ds, 1, 1e18)
	f := ds.files.(*objFiles)
	e := f.cat.Blocks[0]
	if !e.Terms || int64(len(e.Index)) >= e.IndexLength {
		t.Fatalf("entry: terms %v, index %d bytes of the block's %d", e.Terms, len(e.Index), e.IndexLength)
	}
	ro, err := OpenRemote(Options{Objects: objs, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	granules := func() (may, never []bool) {
		rds, _ := ro.Get("logs")
		s := rds.Snapshot()
		defer s.Release()
		for _, p := range s.Parts {
			for _, m := range p.Columns() {
				if m.Key == (ColKey{Name: "msg", Type: vector.String}) {
					_, may = m.Terms.Granules([]string{"wörld"})
					_, never = m.Terms.Granules([]string{"absentword"})
				}
			}
		}
		return may, never
	}
	gets, got := objs.Gets, objs.GetByte
	may, never := granules()
	if !slices.Contains(may, true) || slices.Contains(never, true) {
		t.Fatalf("filters loaded from the block: present word %v, absent word %v", may, never)
	}
	msg := slices.IndexFunc(e.TermRanges, func(r termRange) bool { return r.Col == colIndex(t, e, "msg") })
	if n, bytes := objs.Gets-gets, objs.GetByte-got; n != 1 || msg < 0 || bytes != int64(e.TermRanges[msg].Len) {
		t.Errorf("reading msg's filters took %d GETs of %d bytes, want 1 of its %d", n, bytes, e.TermRanges[msg].Len)
	}
	ro.dropDataset("logs") // parts built again, filters not yet read
	objs.Fail = func(op, key string) error {
		if op == "get" && strings.Contains(key, "/blocks/") {
			return fmt.Errorf("bucket unreachable")
		}
		return nil
	}
	if err := ro.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, never := granules(); !slices.Contains(never, true) {
		t.Errorf("with the index unreadable the block was pruned: %v", never)
	}
}

// A bucket written by format 1 (every version full, whole indexes) still
// opens, and the writer's next versions are deltas on top of it.
func TestCatalogReadsFormat1(t *testing.T) {
	objs := NewMemObjects()
	opts := objOpts(objs)
	dir := t.TempDir()
	db := mustObjDB(t, dir, opts)
	ds, _ := db.Create("logs")
	want := flushBatches(t, ds, 2, 1e18)
	f := ds.files.(*objFiles)
	cat := f.cat
	db.Close()
	// Rewrite the newest version as format 1 would have written it.
	ctx := context.Background()
	v1 := catalogDoc{Format: 1, Version: cat.Version, Dataset: "logs", Created: cat.Created, NextBlock: cat.NextBlock}
	for _, b := range cat.Blocks {
		raw, err := objs.Get(ctx, b.Key)
		if err != nil {
			t.Fatal(err)
		}
		b.Index, b.IndexLength, b.Terms, b.TermRanges = raw[b.IndexOffset:b.IndexOffset+b.IndexLength], 0, false, nil
		v1.Blocks = append(v1.Blocks, b)
	}
	body, _ := json.Marshal(&v1)
	for _, k := range objs.Keys() {
		if strings.Contains(k, "/catalog/") {
			objs.Delete(ctx, k)
		}
	}
	objs.Put(ctx, catalogKey("logs", cat.Version), body)
	db = mustObjDB(t, dir, opts)
	defer db.Close()
	ds, _ = db.Get("logs")
	want = append(want, flushBatches(t, ds, 1, 2e18)...)
	if d, _ := catalogObject(t, objs, "logs", cat.Version+1); d.Kind != kindDelta || d.Checkpoint != cat.Version {
		t.Fatalf("version after format 1: %q on checkpoint %d", d.Kind, d.Checkpoint)
	}
	readerSees(t, objs, want)
}

// A version of 4 KiB or more of JSON is stored zstd-compressed; it reads
// back as it was written, and a damaged one is corruption naming it. A
// format 2 full version is the large one (a root names manifests, which
// TestCatalogScale checks the same way).
func TestCatalogCompressedVersions(t *testing.T) {
	writeFormat = 2
	defer func() { writeFormat = catalogFormat }()
	objs, want := flushedBucket(t, checkpointEvery)
	ctx := context.Background()
	key := catalogKey("logs", checkpointEvery)
	raw, err := objs.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := catalogObject(t, objs, "logs", checkpointEvery)
	js, _ := json.Marshal(&d)
	if !bytes.HasPrefix(raw, zstdMagic) || len(raw)*2 > len(js) {
		t.Fatalf("full version %d: %d B stored for %d B of JSON", checkpointEvery, len(raw), len(js))
	}
	readerSees(t, objs, want)
	objs.Put(ctx, key, raw[:len(raw)/2])
	var ce *CorruptionError
	if _, err := loadCatalog(ctx, objs, "logs", nil); !errors.As(err, &ce) || ce.File != key {
		t.Errorf("a truncated compressed version: %v", err)
	}
}

// colIndex is the position of the string column name in a catalog
// entry's index.
func colIndex(t *testing.T, e catalogBlock, name string) int {
	t.Helper()
	idx, err := parseCatalogIndex(e)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range idx.cols {
		if c.key.Name == name && c.key.Type == vector.String {
			return i
		}
	}
	t.Fatalf("no string column %s", name)
	return -1
}

// An entry with term filters but no ranges (written before ranges were)
// still finds them: it reads the block's whole index once.
func TestCatalogEntryWithoutTermRanges(t *testing.T) {
	objs := NewMemObjects()
	opts := objOpts(objs)
	db := mustObjDB(t, t.TempDir(), opts)
	ds, _ := db.Create("logs")
	flushBatches(t, ds, 1, 1e18)
	e := ds.files.(*objFiles).cat.Blocks[0]
	db.Close()
	e.TermRanges = nil
	p, err := remotePart(objs, e, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	gets, got := objs.Gets, objs.GetByte
	for _, m := range p.Columns() {
		if m.Key == (ColKey{Name: "msg", Type: vector.String}) {
			if _, never := m.Terms.Granules([]string{"absentword"}); slices.Contains(never, true) {
				t.Errorf("an absent word may be in the block: %v", never)
			}
		}
	}
	if objs.Gets-gets != 1 || objs.GetByte-got != e.IndexLength+trailerLen {
		t.Errorf("%d GETs of %d bytes, want one of the index and trailer (%d)", objs.Gets-gets, objs.GetByte-got, e.IndexLength+trailerLen)
	}
}
