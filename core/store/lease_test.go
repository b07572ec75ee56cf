//go:build !js

package store

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testClock is a clock the test moves.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// leaseOpts are object options with a 30 s lease on clock c.
func leaseOpts(objs ObjectStore, c *testClock) Options {
	o := objOpts(objs)
	o.LeaseTTL, o.leaseNow = 30*time.Second, c.now
	return o
}

func storedLease(t *testing.T, objs *MemObjects) leaseDoc {
	t.Helper()
	b, _, err := objs.GetTag(t.Context(), leaseKey)
	if err != nil {
		t.Fatal(err)
	}
	var d leaseDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// sameSlot is a new data directory naming the slot of dir's: the data
// directory copied to a second machine (OBJECTS.md, "Many writers").
func sameSlot(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, slotFile))
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, slotFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return other
}

// A second writer on a slot is refused at open, naming the holder
// and when its lease expires; once the first closes (releasing it) the
// second opens at once with the next fencing token.
func TestLeaseSecondWriterRefused(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	dir := t.TempDir()
	a := mustObjDB(t, dir, leaseOpts(objs, clock))
	held := storedLease(t, objs)
	if held.Token != 1 || held.Released {
		t.Fatalf("first holder's lease: %+v", held)
	}
	clock.add(10 * time.Second)
	_, err := Open(sameSlot(t, dir), leaseOpts(objs, clock))
	if !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("second writer: %v, want ErrLeaseHeld", err)
	}
	for _, want := range []string{held.Holder, held.Expires.Format(time.RFC3339), "in 20s"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if d := storedLease(t, objs); !d.Released {
		t.Fatalf("a closed writer left its lease live: %+v", d)
	}
	b := mustObjDB(t, sameSlot(t, dir), leaseOpts(objs, clock))
	defer b.Close()
	if d := storedLease(t, objs); d.Token != 2 || d.Released || d.Holder == held.Holder {
		t.Fatalf("second writer after release: %+v", d)
	}
}

// A writer that stops renewing (paused past the TTL) is taken over; when
// it resumes it refuses appends and commits nothing, and every catalog
// version names the token of the writer that wrote it.
func TestLeaseTakeoverFencesPausedWriter(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	dir := t.TempDir()
	a := mustObjDB(t, dir, leaseOpts(objs, clock))
	defer a.Close()
	ds, err := a.Create("logs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(mixedRows(300, 1e18)); err != nil {
		t.Fatal(err)
	}
	clock.add(29 * time.Second) // not yet expired
	if _, err := Open(sameSlot(t, dir), leaseOpts(objs, clock)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("a writer before the lease expired: %v, want ErrLeaseHeld", err)
	}
	clock.add(2 * time.Second) // a paused: 31 s without a renewal
	b := mustObjDB(t, sameSlot(t, dir), leaseOpts(objs, clock))
	defer b.Close()
	taker := storedLease(t, objs)
	if taker.Token != 2 {
		t.Fatalf("takeover token %d, want 2", taker.Token)
	}
	_, before := countKeys(objs)

	// a resumes: its WAL still holds 300 unflushed rows.
	_, err = ds.Append(mixedRows(10, 2e18))
	if !errors.Is(err, ErrLeaseLost) || !strings.Contains(err.Error(), taker.Holder) {
		t.Fatalf("append after the takeover: %v, want ErrLeaseLost naming %s", err, taker.Holder)
	}
	if err := ds.Flush(); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("flush after the takeover: %v, want ErrLeaseLost", err)
	}
	if _, err := a.Create("other"); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("create after the takeover: %v, want ErrLeaseLost", err)
	}
	if err := a.Delete("logs"); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("delete after the takeover: %v, want ErrLeaseLost", err)
	}
	if _, after := countKeys(objs); after != before {
		t.Fatalf("the fenced writer changed the catalogs: %d versions, then %d: %v", before, after, objs.Keys())
	}
	if d := storedLease(t, objs); d.Holder != taker.Holder {
		t.Fatalf("the fenced writer touched the lease: %+v", d)
	}

	bs, err := b.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bs.Append(mixedRows(200, 3e18)); err != nil {
		t.Fatal(err)
	}
	if err := bs.Flush(); err != nil {
		t.Fatal(err)
	}
	cat, err := loadCatalog(t.Context(), objs, "logs", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Lease != 2 {
		t.Fatalf("the new writer's catalog version carries token %d, want 2", cat.Lease)
	}
}

// The holder's renewals keep others out past the first TTL; a fence
// check after a late renewal renews before it lets the write through.
func TestLeaseRenewalKeepsHolder(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	dir := t.TempDir()
	a := mustObjDB(t, dir, leaseOpts(objs, clock))
	defer a.Close()
	ds, _ := a.Create("logs")
	first := storedLease(t, objs)
	clock.add(20 * time.Second) // past TTL/2: an append goes on, a commit renews first
	if _, err := ds.Append(mixedRows(10, 1e18)); err != nil {
		t.Fatal(err)
	}
	if d := storedLease(t, objs); !d.Expires.Equal(first.Expires) {
		t.Fatalf("an append within the TTL renewed the lease: %+v", d)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	renewed := storedLease(t, objs)
	if !renewed.Expires.Equal(first.Expires.Add(20*time.Second)) || renewed.Token != 1 {
		t.Fatalf("after a late commit the lease is %+v, want it renewed to %s", renewed, first.Expires.Add(20*time.Second))
	}
	clock.add(20 * time.Second) // 40 s after the start, 20 s after the renewal
	if _, err := Open(sameSlot(t, dir), leaseOpts(objs, clock)); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("a writer while the renewed lease lives: %v, want ErrLeaseHeld", err)
	}
	if err := a.lease.renew(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := storedLease(t, objs); !d.Expires.Equal(clock.now().Add(30 * time.Second).UTC()) {
		t.Fatalf("renewal wrote expiry %s, want %s", d.Expires, clock.now().Add(30*time.Second))
	}
}

// A node restarted on its own data directory after a crash takes its
// dead process's lease over at once instead of waiting out the TTL.
func TestLeaseSameNodeRestartTakesOver(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	dir := t.TempDir()
	a := mustObjDB(t, dir, leaseOpts(objs, clock))
	close(a.lease.stop) // a crash: no release, the directory lock dies with the process
	<-a.lease.done
	a.unlock()
	b := mustObjDB(t, dir, leaseOpts(objs, clock))
	defer b.Close()
	if d := storedLease(t, objs); d.Token != 2 {
		t.Fatalf("restart on the same directory: lease %+v, want token 2", d)
	}
}

// A renewal whose answer was lost (the write landed, the reply did not)
// finds its own lease and carries on.
func TestLeaseRenewalAfterLostAnswer(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	a := mustObjDB(t, t.TempDir(), leaseOpts(objs, clock))
	defer a.Close()
	b, _, _ := objs.GetTag(t.Context(), leaseKey)
	if _, err := objs.Swap(t.Context(), leaseKey, b, a.lease.tag); err != nil { // the write whose reply was lost
		t.Fatal(err)
	}
	if err := a.lease.renew(t.Context()); err != nil {
		t.Fatalf("renewal after its own write: %v", err)
	}
	if err := a.fence(); err != nil {
		t.Fatal(err)
	}
}

// While the store is unreachable a writer keeps appending to its WAL
// until its lease may have expired; then it refuses appends as lost
// (nothing it acknowledged could reach the bucket if another node took
// over), and once the store is back and the lease still its own it
// appends again.
func TestLeaseStoreOutage(t *testing.T) {
	objs, clock := NewMemObjects(), &testClock{t: time.Unix(1_800_000_000, 0)}
	a := mustObjDB(t, t.TempDir(), leaseOpts(objs, clock))
	defer a.Close()
	ds, _ := a.Create("logs")
	down := errors.New("connection refused")
	objs.Fail = func(op, key string) error { return down }
	clock.add(20 * time.Second)
	if _, err := ds.Append(mixedRows(10, 1e18)); err != nil {
		t.Fatalf("an append 20 s into a store outage: %v", err)
	}
	if err := ds.Flush(); err == nil || !errors.Is(err, down) {
		t.Fatalf("a flush in the outage: %v, want the store's error", err)
	}
	clock.add(15 * time.Second) // 35 s without a renewal
	if _, err := ds.Append(mixedRows(10, 2e18)); !errors.Is(err, ErrLeaseLost) || !strings.Contains(err.Error(), "expired 5s ago") {
		t.Fatalf("an append once the lease expired: %v, want ErrLeaseLost saying since when", err)
	}
	objs.Fail = nil
	if _, err := ds.Append(mixedRows(10, 3e18)); err != nil {
		t.Fatalf("an append once the store is back and the lease still this node's: %v", err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
}
