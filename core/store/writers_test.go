//go:build !js

package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

// idRows is a batch of n events whose "id" names the writer, the batch
// and the row, so a reader can tell each acknowledged event apart.
func idRows(writer string, batch, n int) *Rows {
	b := NewRowsBuilder()
	base := int64(1e18) + int64(batch)*1e9
	for i := range n {
		b.Begin()
		b.SetTime(base + int64(i)*1e6)
		b.SetString("id", fmt.Sprintf("%s-%d-%d", writer, batch, i))
		b.End(base)
	}
	return b.Finish(base + 1)
}

var idKey = ColKey{Name: "id", Type: vector.String}

// idCounts counts each id in a snapshot of ds.
func idCounts(t *testing.T, ds *Dataset) map[string]int {
	t.Helper()
	s := ds.Snapshot()
	defer s.Release()
	n := map[string]int{}
	for _, p := range s.Parts {
		v, err := p.ReadColumn(idKey)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; v != nil && i < v.Len; i++ {
			n[v.Str(i)]++
		}
	}
	return n
}

// exactlyOnce fails unless counts holds every acked id once and nothing
// else.
func exactlyOnce(t *testing.T, who string, counts map[string]int, acked map[string]bool) {
	t.Helper()
	for id := range acked {
		if counts[id] != 1 {
			t.Fatalf("%s: acknowledged event %s seen %d times", who, id, counts[id])
		}
	}
	if len(counts) != len(acked) {
		t.Fatalf("%s: %d distinct events, %d acknowledged", who, len(counts), len(acked))
	}
}

// multiOpts are writer options on a shared lease clock; Refresh is long
// so the test decides when a writer follows the others (syncSlots).
func multiOpts(objs ObjectStore, c *testClock) Options {
	o := leaseOpts(objs, c)
	o.Refresh = time.Hour
	return o
}

// Three writers on one prefix append distinct events at once; one is
// fenced midway (a copy of its data directory took its slot over) and
// later restarted on its own directory, which replays its WAL into its
// slot. A reader, and every writer, sees each acknowledged event exactly
// once.
func TestManyWritersNothingLost(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	dbs := make([]*DB, 3)
	for i, dir := range dirs {
		dbs[i] = mustObjDB(t, dir, multiOpts(objs, clock))
	}
	defer func() {
		for _, db := range dbs {
			db.Close()
		}
	}()
	if dbs[0].slot == dbs[1].slot || dbs[1].slot == dbs[2].slot || dbs[0].slot != legacySlot {
		t.Fatalf("slots %s, %s, %s: want slot 0 for the first writer, then distinct ones", dbs[0].slot, dbs[1].slot, dbs[2].slot)
	}
	if _, err := dbs[0].Create("logs"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	acked := map[string]bool{}
	appendBatches := func(db *DB, name string, from, to int) error {
		ds, err := db.Get("logs") // writers 1 and 2 join the dataset here
		if err != nil {
			return err
		}
		for b := from; b < to; b++ {
			r := idRows(name, b, 200)
			if _, err := ds.Append(r); err != nil {
				return err
			}
			mu.Lock()
			for i := range 200 {
				acked[fmt.Sprintf("%s-%d-%d", name, b, i)] = true
			}
			mu.Unlock()
			if b%3 == 2 {
				if err := ds.Flush(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = appendBatches(dbs[i], fmt.Sprint("w", i), 0, 10) }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", i, err)
		}
	}

	// Writer 2 is paused past its lease; a copy of its directory takes
	// the slot over. Resumed, it acknowledges nothing more.
	clock.add(31 * time.Second)
	taker := mustObjDB(t, sameSlot(t, dirs[2]), multiOpts(objs, clock))
	if taker.slot != dbs[2].slot {
		t.Fatalf("the copy took slot %s, want %s", taker.slot, dbs[2].slot)
	}
	if err := appendBatches(dbs[2], "w2", 10, 12); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("an append on the fenced writer: %v, want ErrLeaseLost", err)
	}
	if err := taker.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := appendBatches(dbs[i], fmt.Sprint("w", i), 10, 13); err != nil {
			t.Fatal(err)
		}
	}
	// Restarted on its own directory (the process died: its lock goes),
	// writer 2 replays what it acknowledged and had not flushed.
	close(dbs[2].lease.stop)
	<-dbs[2].lease.done
	dbs[2].unlock()
	dbs[2] = mustObjDB(t, dirs[2], multiOpts(objs, clock))
	for _, db := range dbs {
		ds, _ := db.Get("logs")
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}

	ro, err := OpenRemote(Options{Objects: objs, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rds, err := ro.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "the reader", idCounts(t, rds), acked)
	checked := map[string]bool{}
	problems, err := CheckObjects(t.Context(), objs, func(_, _ int, key string) { checked[key] = true })
	if err != nil || len(problems) > 0 {
		t.Fatalf("check of the bucket: %v %v", problems, err)
	}
	s := rds.Snapshot()
	for _, p := range s.Parts {
		if !checked[PartKey(p)] {
			t.Errorf("the check of the bucket skipped block %s", PartKey(p))
		}
	}
	s.Release()
	for i, db := range dbs {
		if err := db.syncSlots(t.Context()); err != nil {
			t.Fatal(err)
		}
		ds, _ := db.Get("logs")
		exactlyOnce(t, fmt.Sprint("writer ", i), idCounts(t, ds), acked)
	}
}

// A delete on one writer removes the dataset everywhere: readers at
// once, the other writers' copies when they follow the registry; a
// dataset created again under the name starts empty on every node. A
// trim on one writer is followed by the others.
func TestManyWritersDeleteAndTrim(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	a := mustObjDB(t, t.TempDir(), multiOpts(objs, clock))
	defer a.Close()
	b := mustObjDB(t, t.TempDir(), multiOpts(objs, clock))
	defer b.Close()
	ads, _ := a.Create("logs")
	if _, err := ads.Append(idRows("a", 0, 100)); err != nil {
		t.Fatal(err)
	}
	if err := ads.Flush(); err != nil {
		t.Fatal(err)
	}
	bds, err := b.Get("logs")
	if err != nil {
		t.Fatalf("a dataset created on another writer: %v", err)
	}
	if _, err := bds.Append(idRows("b", 0, 100)); err != nil {
		t.Fatal(err)
	}
	if err := bds.Flush(); err != nil {
		t.Fatal(err)
	}

	// Trim on a: b follows.
	cut := int64(1e18) + 50*1e6
	if _, err := ads.Trim(cut); err != nil {
		t.Fatal(err)
	}
	if err := b.syncSlots(t.Context()); err != nil {
		t.Fatal(err)
	}
	bds.mu.RLock()
	got := bds.trimBefore
	bds.mu.RUnlock()
	if got != cut {
		t.Fatalf("b's trim bound %d after a trimmed on a, want %d", got, cut)
	}

	// Delete on a: gone for readers, then from b's slot.
	if err := a.Delete("logs"); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenRemote(Options{Objects: objs, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.Get("logs"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a reader after the delete: %v, want ErrNotFound", err)
	}
	if err := b.syncSlots(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.get("logs"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("b after following the delete: %v, want ErrNotFound", err)
	}
	for _, k := range objs.Keys() {
		if k != registryMark && !isLease(k) {
			t.Fatalf("the delete left %s in the bucket", k)
		}
	}

	// Created again on b: empty, and a joins the new generation.
	nds, err := b.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nds.Append(idRows("new", 0, 10)); err != nil {
		t.Fatal(err)
	}
	if err := nds.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := ro.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	rds, err := ro.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for i := range 10 {
		want[fmt.Sprintf("new-0-%d", i)] = true
	}
	exactlyOnce(t, "the reader", idCounts(t, rds), want)
	ads2, err := a.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "a", idCounts(t, ads2), want)
}

func isLease(k string) bool {
	return k == leaseKey || len(k) > len(leaseKey) && k[len(k)-len(leaseKey)-1:] == "/"+leaseKey
}

// A prefix an earlier aplite wrote (slot 0, no registry) stays readable,
// and a new writer on it registers its datasets and adds its own slot.
func TestManyWritersUpgradeLegacyPrefix(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	old := mustObjDB(t, t.TempDir(), multiOpts(objs, clock))
	ds, _ := old.Create("logs")
	if _, err := ds.Append(idRows("old", 0, 50)); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	for _, k := range objs.Keys() { // what an earlier aplite left: no registry
		if k == registryMark || k == registryKey("logs") {
			objs.Delete(t.Context(), k)
		}
	}
	want := map[string]bool{}
	for i := range 50 {
		want[fmt.Sprintf("old-0-%d", i)] = true
	}
	ro, err := OpenRemote(Options{Objects: objs, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	rds, err := ro.Get("logs")
	if err != nil {
		t.Fatalf("a reader of a prefix without a registry: %v", err)
	}
	exactlyOnce(t, "the reader", idCounts(t, rds), want)

	fresh := mustObjDB(t, t.TempDir(), multiOpts(objs, clock))
	defer fresh.Close()
	if fresh.slot == legacySlot {
		t.Fatal("a new writer took slot 0, which an earlier writer's directory owns")
	}
	if _, err := getRegEntry(t.Context(), objs, "logs"); err != nil {
		t.Fatalf("the new writer did not register the old dataset: %v", err)
	}
	fds, err := fresh.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fds.Append(idRows("new", 0, 30)); err != nil {
		t.Fatal(err)
	}
	if err := fds.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		want[fmt.Sprintf("new-0-%d", i)] = true
	}
	if err := ro.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, "the reader", idCounts(t, rds), want)
	exactlyOnce(t, "the new writer", idCounts(t, fds), want)
}

// Writers started at once on a prefix no writer used: one takes slot 0,
// the others (refused there) slots of their own; none is refused.
func TestManyWritersStartTogether(t *testing.T) {
	clock := &testClock{t: time.Unix(1_800_000_000, 0)}
	objs := &probeBarrier{MemObjects: NewMemObjects(), n: 4, all: make(chan struct{})}
	dbs := make([]*DB, 4)
	errs := make([]error, len(dbs))
	var wg sync.WaitGroup
	for i := range dbs {
		wg.Add(1)
		go func() { defer wg.Done(); dbs[i], errs[i] = Open(t.TempDir(), multiOpts(objs, clock)) }()
	}
	wg.Wait()
	slots := map[string]bool{}
	for i, db := range dbs {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		defer db.Close()
		slots[db.slot] = true
	}
	if len(slots) != len(dbs) || !slots[legacySlot] {
		t.Fatalf("slots %v: want %d distinct, one of them 0", slots, len(dbs))
	}
}

// probeBarrier holds the first n reads of slot 0's lease until all n
// came: every writer finds the prefix unused before any takes slot 0.
type probeBarrier struct {
	*MemObjects
	mu  sync.Mutex
	n   int
	all chan struct{}
}

func (p *probeBarrier) Get(ctx context.Context, key string) ([]byte, error) {
	if key == leaseKey {
		p.mu.Lock()
		if p.n > 0 {
			if p.n--; p.n == 0 {
				close(p.all)
			}
		}
		p.mu.Unlock()
		select {
		case <-p.all:
		case <-time.After(5 * time.Second):
		}
	}
	return p.MemObjects.Get(ctx, key)
}

// A writer reads the other writers' newest blocks when asked
// (RefreshOthers: a query node that refreshed first names them in a
// fragment), not only at its next refresh.
func TestManyWritersRefreshOthers(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	a := mustObjDB(t, t.TempDir(), multiOpts(objs, clock))
	defer a.Close()
	b := mustObjDB(t, t.TempDir(), multiOpts(objs, clock))
	defer b.Close()
	ads, _ := a.Create("logs")
	bds, err := b.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bds.Append(idRows("b", 0, 100)); err != nil {
		t.Fatal(err)
	}
	if err := bds.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := len(idCounts(t, ads)); n != 0 {
		t.Fatalf("a saw %d of b's events before any refresh (Refresh is an hour)", n)
	}
	if !a.FollowsOthers() {
		t.Fatal("a writer on object storage does not follow the others")
	}
	if err := a.RefreshOthers(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for i := range 100 {
		want[fmt.Sprintf("b-0-%d", i)] = true
	}
	exactlyOnce(t, "a", idCounts(t, ads), want)
}
