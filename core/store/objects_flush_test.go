//go:build !js

package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
)

// flushOpts seals every 100 rows and flushes only when asked, so one
// Flush persists several heap blocks.
func flushOpts(objs ObjectStore) Options {
	o := objOpts(objs)
	o.SealRows, o.FlushRows = 100, 1<<20
	return o
}

// countKeys counts the bucket's block objects and catalog versions.
func countKeys(objs *MemObjects) (blocks, cats int) {
	for _, k := range objs.Keys() {
		switch {
		case strings.Contains(k, "/blocks/"):
			blocks++
		case strings.Contains(k, "/catalog/"):
			cats++
		}
	}
	return blocks, cats
}

// heapIDs lists the blocks not yet durable, in id order.
func heapIDs(d *Dataset) []uint64 {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var ids []uint64
	for _, b := range d.blocks {
		if !b.durable {
			ids = append(ids, b.id)
		}
	}
	slices.Sort(ids)
	return ids
}

// appendSealed appends n batches of 100 rows and waits until each is
// sealed into a heap block.
func appendSealed(t *testing.T, ds *Dataset, n int) []event {
	t.Helper()
	var want []event
	for i := range n {
		r := mixedRows(100, int64(i+1)*1e17)
		want = append(want, eventsOfRows(r)...)
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	testutil.Eventually(t, 20*time.Second, func() bool { return len(heapIDs(ds)) >= n }, "fewer than %d batches sealed", n)
	return want
}

// A flush uploads its blocks together and names them in one catalog
// version, not one version per block.
func TestObjectsFlushIsOneCatalogVersion(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), flushOpts(objs))
	defer db.Close()
	ds, _ := db.Create("logs")
	want := appendSealed(t, ds, 4)
	blocks0, cats0 := countKeys(objs)
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	blocks, cats := countKeys(objs)
	if blocks-blocks0 != 4 || cats-cats0 != 1 {
		t.Fatalf("a flush of 4 blocks wrote %d blocks and %d catalog versions, want 4 and 1", blocks-blocks0, cats-cats0)
	}
	s := ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
}

// When one upload of a flush fails, the blocks before it are committed
// (durable in id order), every row stays queryable, and the next flush
// commits the rest; a reader of the bucket then sees each row once.
func TestObjectsUploadFailureCommitsPrefix(t *testing.T) {
	objs := NewMemObjects()
	opts := flushOpts(objs)
	db := mustObjDB(t, t.TempDir(), opts)
	defer db.Close()
	ds, _ := db.Create("logs")
	want := appendSealed(t, ds, 4)
	ids := heapIDs(ds)
	bad := fmt.Sprintf("/blocks/%016x-", ids[2])
	objs.Fail = func(op, key string) error {
		if op == "put" && strings.Contains(key, bad) {
			return errors.New("injected: upload refused")
		}
		return nil
	}
	if err := ds.Flush(); err == nil || !strings.Contains(err.Error(), "upload refused") {
		t.Fatalf("flush with the third upload refused: %v", err)
	}
	f := ds.files.(*objFiles)
	f.mu.Lock()
	var named []uint64
	for _, b := range f.cat.Blocks {
		named = append(named, b.ID)
	}
	f.mu.Unlock()
	if !slices.Equal(named, ids[:2]) {
		t.Fatalf("catalog names blocks %x after the failed flush, want the prefix %x", named, ids[:2])
	}
	s := ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	objs.Fail = nil
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	if left := heapIDs(ds); len(left) != 0 {
		t.Fatalf("blocks %x still on the heap after the second flush", left)
	}
	reader, err := OpenRemote(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	rds, err := reader.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	s = rds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
}

// A slow upload does not hold the appends: while one flush's upload hangs,
// the flusher goes on sealing the next batches (before, it waited for the
// upload, and backpressure stopped the appends after four batches).
func TestObjectsSlowUploadDoesNotStallAppends(t *testing.T) {
	objs := NewMemObjects()
	opts := objOpts(objs)
	opts.SealRows, opts.FlushRows = 100, 200
	db := mustObjDB(t, t.TempDir(), opts)
	ds, _ := db.Create("logs")
	release := make(chan struct{})
	var once sync.Once
	objs.Fail = func(op, key string) error {
		if op == "put" && strings.Contains(key, "/blocks/") {
			<-release
		}
		return nil
	}
	defer once.Do(func() { close(release) })
	var want []event
	appended := make(chan error, 1)
	go func() {
		for i := range 6 {
			r := mixedRows(100, int64(i+1)*1e17)
			want = append(want, eventsOfRows(r)...)
			if _, err := ds.Append(r); err != nil {
				appended <- err
				return
			}
		}
		appended <- nil
	}()
	select {
	case err := <-appended:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		once.Do(func() { close(release) })
		t.Fatal("appends stalled behind a hanging upload")
	}
	once.Do(func() { close(release) })
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	s := ds.Snapshot()
	sameEvents(t, snapshotEvents(t, s), want)
	s.Release()
	if left := heapIDs(ds); len(left) != 0 {
		t.Fatalf("blocks %x still on the heap after the flush", left)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}
