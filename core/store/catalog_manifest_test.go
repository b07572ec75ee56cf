//go:build !js

package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hourRows is batch i of a stream whose batches are 20 minutes apart,
// so flushes fill a new time partition every third batch; each event's
// "id" names its batch and row.
func hourRows(i, n int) *Rows {
	b := NewRowsBuilder()
	base := int64(1e18) + int64(i)*int64(20*time.Minute)
	for r := range n {
		b.Begin()
		b.SetTime(base + int64(r)*1e6)
		b.SetString("id", fmt.Sprintf("b%d-%d", i, r))
		b.End(base)
	}
	return b.Finish(base + 1)
}

// rootDoc reads version v, which must be a format 3 root.
func rootDoc(t *testing.T, objs ObjectStore, v uint64) *catalogDoc {
	t.Helper()
	d, err := readCatalogDoc(context.Background(), objs, "logs", v)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != 3 || d.Kind != kindFull || len(d.Blocks) > 0 {
		t.Fatalf("version %d: format %d %s with %d inline blocks, want a format 3 root", v, d.Format, d.Kind, len(d.Blocks))
	}
	return d
}

// countGets counts the GETs of keys containing each of the given parts
// until the test ends.
func countGets(t *testing.T, objs *MemObjects, parts ...string) []*atomic.Int64 {
	n := make([]*atomic.Int64, len(parts))
	for i := range n {
		n[i] = new(atomic.Int64)
	}
	objs.Fail = func(op, key string) error {
		for i, p := range parts {
			if op == "get" && strings.Contains(key, p) {
				n[i].Add(1)
			}
		}
		return nil
	}
	t.Cleanup(func() { objs.Fail = nil })
	return n
}

// A checkpoint writes a manifest only for the partitions whose blocks
// changed since the previous one and carries the others' refs over; a
// reader a version behind applies the root as a delta without reading a
// manifest, a cold one reads them all; after a compaction empties old
// partitions their manifests are dropped, swept after the grace period,
// and readers still see every event once.
func TestCatalogManifestsTouchOnlyChanged(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	defer db.Close()
	ds, _ := db.Create("logs")
	acked := map[string]bool{}
	flush := func(from, to int) {
		for i := from; i < to; i++ {
			r := hourRows(i, 40)
			if _, err := ds.Append(r); err != nil {
				t.Fatal(err)
			}
			if err := ds.Flush(); err != nil {
				t.Fatal(err)
			}
			for j := range 40 {
				acked[fmt.Sprintf("b%d-%d", i, j)] = true
			}
		}
	}
	flush(0, checkpointEvery-1) // versions 2..32
	f := ds.files.(*objFiles)
	if f.cat.Version != checkpointEvery {
		t.Fatalf("at version %d, want %d", f.cat.Version, checkpointEvery)
	}
	first := rootDoc(t, objs, checkpointEvery)
	if len(first.Manifests) < 10 {
		t.Fatalf("%d manifests for 31 batches 20 minutes apart", len(first.Manifests))
	}
	ro, rds := openReader(t, objs)
	flush(checkpointEvery-1, 2*checkpointEvery-2) // versions 33..63
	if err := ro.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	flush(2*checkpointEvery-2, 2*checkpointEvery-1) // version 64, a root
	second := rootDoc(t, objs, 2*checkpointEvery)
	touched := map[int64]bool{} // partitions that gained blocks since version 32
	for _, b := range f.cat.Blocks {
		if b.ID >= first.NextBlock {
			touched[partitionOf(b, defaultPartitionWidth)] = true
		}
	}
	was := map[int64]string{}
	for _, r := range first.Manifests {
		was[r.Partition] = r.Key
	}
	rewritten := 0
	for _, r := range second.Manifests {
		fresh := strings.Contains(r.Key, fmt.Sprintf("/%020d-", second.Version))
		switch {
		case fresh && !touched[r.Partition]:
			t.Errorf("partition %d, unchanged since version %d, was written again", r.Partition, first.Version)
		case !fresh && r.Key != was[r.Partition]:
			t.Errorf("partition %d names %s, not a manifest of this root nor the last", r.Partition, r.Key)
		case fresh:
			rewritten++
		}
	}
	if rewritten != len(touched) {
		t.Errorf("root %d wrote %d manifests; %d partitions gained blocks", second.Version, rewritten, len(touched))
	}

	gets := countGets(t, objs, "/catalog/", "/manifests/")
	if err := ro.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c, m := gets[0].Load(), gets[1].Load(); c != 1 || m != 0 {
		t.Errorf("a reader one version behind a root made %d catalog and %d manifest GETs, want 1 and 0", c, m)
	}
	exactlyOnce(t, "warm reader", idCounts(t, rds), acked)
	_, cold := openReader(t, objs)
	if m := gets[1].Load(); m != int64(len(second.Manifests)) {
		t.Errorf("a cold reader read %d manifests of %d", m, len(second.Manifests))
	}
	exactlyOnce(t, "cold reader", idCounts(t, cold), acked)

	// Compaction merges everything into the newest partition: the next
	// root names one manifest and lists the others as removed.
	ds.lastAppend.Store(0)
	ds.compact()
	for f.cat.Version%checkpointEvery != checkpointEvery-1 {
		if err := f.commit(context.Background(), func(*catalog) {}); err != nil {
			t.Fatal(err)
		}
	}
	flush(2*checkpointEvery-1, 2*checkpointEvery)
	third := rootDoc(t, objs, f.cat.Version)
	var removed []string
	for _, g := range third.Removed {
		if strings.Contains(g.Key, "/manifests/") {
			removed = append(removed, g.Key)
		}
	}
	if len(third.Manifests) >= len(second.Manifests) || len(removed) < len(second.Manifests)-len(third.Manifests) {
		t.Fatalf("after compaction: %d manifests (%d before), %d removed", len(third.Manifests), len(second.Manifests), len(removed))
	}
	f.mu.Lock()
	f.grace = time.Nanosecond
	cat := f.cat
	f.mu.Unlock()
	f.sweep(cat)
	for _, k := range removed {
		if _, err := objs.Get(context.Background(), k); !errors.Is(err, ErrObjectNotFound) {
			t.Errorf("replaced manifest %s still there after the grace period: %v", k, err)
		}
	}
	if err := ro.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "warm reader after compaction", idCounts(t, rds), acked)
	_, cold = openReader(t, objs)
	exactlyOnce(t, "cold reader after compaction", idCounts(t, cold), acked)
}

// countIDs counts each id in a snapshot of ds (idCounts for a
// goroutine other than the test's).
func countIDs(ds *Dataset) (map[string]int, error) {
	s := ds.Snapshot()
	defer s.Release()
	n := map[string]int{}
	for _, p := range s.Parts {
		v, err := p.ReadColumn(idKey)
		if err != nil {
			return nil, err
		}
		for i := 0; v != nil && i < v.Len; i++ {
			n[v.Str(i)]++
		}
	}
	return n, nil
}

// A writer commits (flushes, compactions, roots) while a reader refreshes
// as fast as it can: every snapshot holds each event at most once and
// only acknowledged ones, and at the end the reader and a cold one hold
// every acknowledged event exactly once.
func TestCatalogManifestsConcurrentRefresh(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	defer db.Close()
	ds, _ := db.Create("logs")
	ro, rds := openReader(t, objs)
	var mu sync.Mutex
	acked := map[string]bool{} // appended: in the WAL, maybe not yet in the bucket
	var flushed atomic.Int64   // how many of them a returned Flush put in the bucket
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		for {
			select {
			case <-done:
				return
			default:
			}
			known := int(flushed.Load())
			if err := ro.Refresh(context.Background()); err != nil {
				errc <- err
				return
			}
			counts, err := countIDs(rds)
			if err != nil {
				errc <- err
				return
			}
			mu.Lock()
			for id, n := range counts {
				if n != 1 || !acked[id] {
					mu.Unlock()
					errc <- fmt.Errorf("a refresh saw %s %d times (acknowledged: %v)", id, n, acked[id])
					return
				}
			}
			mu.Unlock()
			if len(counts) < known {
				errc <- fmt.Errorf("a refresh saw %d events, %d were flushed before it", len(counts), known)
				return
			}
		}
	}()
	for i := range 3*checkpointEvery + 5 {
		r := hourRows(i, 30)
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		for j := range 30 {
			acked[fmt.Sprintf("b%d-%d", i, j)] = true
		}
		mu.Unlock()
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
		flushed.Store(int64(len(acked)))
		if i%25 == 24 {
			ds.lastAppend.Store(0)
			ds.compact()
		}
	}
	close(done)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if err := ro.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "reader", idCounts(t, rds), acked)
	_, cold := openReader(t, objs)
	exactlyOnce(t, "cold reader", idCounts(t, cold), acked)
}

// A bucket written in format 2 (full versions with every block inline)
// keeps working: a writer reopened on it goes on with deltas, its next
// checkpoint is a root naming every partition's manifest, and readers,
// warm on format 2 or cold, see every event once.
func TestCatalogManifestsUpgradeFromFormat2(t *testing.T) {
	writeFormat = 2
	defer func() { writeFormat = catalogFormat }()
	objs := NewMemObjects()
	dir := t.TempDir()
	db := mustObjDB(t, dir, objOpts(objs))
	ds, _ := db.Create("logs")
	acked := map[string]bool{}
	flush := func(ds *Dataset, from, to int) {
		for i := from; i < to; i++ {
			if _, err := ds.Append(hourRows(i, 20)); err != nil {
				t.Fatal(err)
			}
			if err := ds.Flush(); err != nil {
				t.Fatal(err)
			}
			for j := range 20 {
				acked[fmt.Sprintf("b%d-%d", i, j)] = true
			}
		}
	}
	flush(ds, 0, checkpointEvery+3)
	if d, _ := catalogObject(t, objs, "logs", checkpointEvery); d.Format != 2 || len(d.Blocks) == 0 {
		t.Fatalf("the old writer's checkpoint: format %d, %d blocks inline", d.Format, len(d.Blocks))
	}
	db.Close()
	warm, wds := openReader(t, objs)
	writeFormat = catalogFormat
	db = mustObjDB(t, dir, objOpts(objs))
	defer db.Close()
	ds, _ = db.Get("logs")
	flush(ds, checkpointEvery+3, 2*checkpointEvery)
	root := rootDoc(t, objs, 2*checkpointEvery)
	parts := map[int64]bool{}
	for _, b := range ds.files.(*objFiles).cat.Blocks {
		parts[partitionOf(b, defaultPartitionWidth)] = true
	}
	if len(root.Manifests) != len(parts) {
		t.Errorf("the first root names %d manifests for %d partitions", len(root.Manifests), len(parts))
	}
	if err := warm.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "reader warm on format 2", idCounts(t, wds), acked)
	_, cold := openReader(t, objs)
	exactlyOnce(t, "cold reader", idCounts(t, cold), acked)
}

// A manifest that is missing, of another dataset or partition, or not
// what its root counts is corruption naming the manifest, never a
// catalog silently short of blocks.
func TestCatalogManifestsDamaged(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	ds, _ := db.Create("logs")
	for i := range checkpointEvery - 1 {
		ds.Append(hourRows(i, 10))
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	ctx := context.Background()
	root := rootDoc(t, objs, checkpointEvery)
	key := root.Manifests[1].Key
	orig, err := getCatalogObject(ctx, objs, key)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(string) string{
		"other dataset":   func(s string) string { return strings.Replace(s, `"dataset":"logs"`, `"dataset":"other"`, 1) },
		"other partition": func(s string) string { return strings.Replace(s, `"partition":`, `"partition":1`, 1) },
		"a block short": func(s string) string {
			i := strings.Index(s, `{"id":`)
			j := strings.Index(s[i+1:], `{"id":`)
			return s[:i] + s[i+1+j:]
		},
		"not JSON": func(s string) string { return s[:len(s)/2] },
		"missing":  nil,
	} {
		if edit == nil {
			objs.Delete(ctx, key)
		} else {
			objs.Put(ctx, key, []byte(edit(string(orig))))
		}
		_, err := loadCatalog(ctx, objs, "logs", nil)
		var ce *CorruptionError
		if name == "missing" {
			if !errors.Is(err, ErrObjectNotFound) || !strings.Contains(err.Error(), key) {
				t.Errorf("%s: %v, want not found naming %s", name, err, key)
			}
			continue
		}
		if !errors.As(err, &ce) || ce.File != key {
			t.Errorf("%s: %v, want corruption of %s", name, err, key)
		}
	}
}

// fakeEntry is entry e as block id of a catalog built without blocks:
// its events span [lo, hi].
func fakeEntry(e catalogBlock, id uint64, lo, hi int64) catalogBlock {
	e.ID, e.Key, e.MinTime, e.MaxTime, e.WALSeqMax = id, fmt.Sprintf("datasets/logs/blocks/%016x-0000000000000000.blk", id), lo, hi, id
	return e
}

// A query over the last hour reads at most two manifests (the current
// and the previous hour's) and gets exactly the blocks that meet it; a
// late block (events in an old hour, ending in the newest) is found by
// a query over its old hour through the newest partition's span.
func TestCatalogManifestsLastHour(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	ds, _ := db.Create("logs")
	ds.Append(hourRows(0, 5))
	ds.Flush()
	model := ds.files.(*objFiles).cat.Blocks[0]
	db.Close()
	objs = NewMemObjects()
	hour := int64(time.Hour)
	t0 := int64(1e18) / hour * hour
	c := &catalog{Dataset: "logs", Version: 1, Created: time.Unix(1, 0).UTC(), NextBlock: 1}
	for i := range 10 * 60 { // a block a minute for ten hours
		lo := t0 + int64(i)*int64(time.Minute)
		c.Blocks = append(c.Blocks, fakeEntry(model, c.NextBlock, lo, lo+int64(time.Minute)-1))
		c.NextBlock++
	}
	late := fakeEntry(model, c.NextBlock, t0+2*hour+5, t0+10*hour-7)
	c.Blocks = append(c.Blocks, late)
	c.NextBlock++
	if err := writeCatalog(context.Background(), objs, nil, c); err != nil {
		t.Fatal(err)
	}
	gets := countGets(t, objs, "/manifests/")
	check := func(lo, hi int64, maxManifests int64) {
		t.Helper()
		gets[0].Store(0)
		got, err := loadCatalogRange(context.Background(), objs, "logs", lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		var want []uint64
		for _, b := range c.Blocks {
			if meets(b.MinTime, b.MaxTime, lo, hi) {
				want = append(want, b.ID)
			}
		}
		var ids []uint64
		for _, b := range got.Blocks {
			ids = append(ids, b.ID)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("[%d, %d): blocks %v, want %v", lo-t0, hi-t0, ids, want)
		}
		if n := gets[0].Load(); n > maxManifests || n == 0 {
			t.Errorf("[%d, %d) read %d manifests, want 1 to %d", lo-t0, hi-t0, n, maxManifests)
		}
	}
	now := t0 + 10*hour - 1
	check(now-hour, now+1, 2)
	check(t0+2*hour, t0+3*hour, 2) // its hour and the late block's
	if !slices.ContainsFunc(c.Blocks, func(b catalogBlock) bool { return b.ID == late.ID }) {
		t.Fatal("the late block is not in the catalog")
	}
}

// A writer that fails between its manifests and its root (a crash, the
// bucket refusing the root) leaves manifests no root names: the sweep
// deletes them once past the grace period and keeps every manifest the
// root names, and no event is lost.
func TestCatalogManifestsOrphansSwept(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), objOpts(objs))
	defer db.Close()
	ds, _ := db.Create("logs")
	acked := map[string]bool{}
	for i := range checkpointEvery {
		if _, err := ds.Append(hourRows(i, 10)); err != nil {
			t.Fatal(err)
		}
		for j := range 10 {
			acked[fmt.Sprintf("b%d-%d", i, j)] = true
		}
		if i == checkpointEvery-2 { // the flush that would write root 32
			objs.Fail = func(op, key string) error {
				if op == "put" && key == catalogKey("logs", checkpointEvery) {
					return errors.New("bucket refused the root")
				}
				return nil
			}
		}
		err := ds.Flush()
		objs.Fail = nil
		if i == checkpointEvery-2 && err == nil {
			t.Fatal("the flush succeeded without its root")
		}
		if i != checkpointEvery-2 && err != nil {
			t.Fatal(err)
		}
	}
	root := rootDoc(t, objs, checkpointEvery)
	named := map[string]bool{}
	for _, r := range root.Manifests {
		named[r.Key] = true
	}
	var orphans []string
	for _, k := range objs.Keys() {
		if strings.Contains(k, "/manifests/") && !named[k] {
			orphans = append(orphans, k)
		}
	}
	if len(orphans) == 0 {
		t.Fatal("the failed root left no manifests behind")
	}
	f := ds.files.(*objFiles)
	f.mu.Lock()
	f.grace = time.Nanosecond
	cat := f.cat
	f.mu.Unlock()
	f.sweep(cat)
	for _, k := range objs.Keys() {
		if strings.Contains(k, "/manifests/") && !named[k] {
			t.Errorf("orphan manifest %s left after the grace period", k)
		}
		delete(named, k)
	}
	if len(named) > 0 {
		t.Errorf("the sweep deleted manifests the root names: %v", named)
	}
	_, rds := openReader(t, objs)
	exactlyOnce(t, "reader", idCounts(t, rds), acked)
}
