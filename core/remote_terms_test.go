package core

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
)

// slowObjects is a bucket whose ranged reads each take delay, as S3's do,
// and which remembers how many ran at once.
type slowObjects struct {
	*store.MemObjects
	delay          time.Duration
	inFlight, most *atomic.Int64
}

func (s slowObjects) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	now := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for m := s.most.Load(); now > m && !s.most.CompareAndSwap(m, now); m = s.most.Load() {
	}
	time.Sleep(s.delay)
	return s.MemObjects.GetRange(ctx, key, off, n)
}

// A `has` on a query node reads the term filters of its blocks (kept in
// the block objects, catalog format 2) side by side, not one block after
// another, and answers as the ingest node does.
func TestRemoteTermFiltersReadSideBySide(t *testing.T) {
	objs := store.NewMemObjects()
	ing, err := store.Open(t.TempDir(), store.Options{Objects: objs, NoSync: true,
		FlushInterval: time.Hour, CompactInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ing.Close()
	ds, _ := ing.Create("logs")
	for _, chunk := range fixtureChunks(t, 8) {
		appendNDJSON(t, ds, chunk)
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	var inFlight, most atomic.Int64
	ro, err := store.OpenRemote(store.Options{Objects: slowObjects{objs, 30 * time.Millisecond, &inFlight, &most}, Refresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	q := "['logs'] | where message has 'permutation' | count"
	want, _ := tabularJSON(t, NewEngine(exec.StoreCatalog(ing)), exec.Request{APL: q, DisableCache: true})
	got, _ := tabularJSON(t, NewEngine(exec.StoreCatalog(ro)), exec.Request{APL: q, DisableCache: true, Workers: 1})
	if got != want {
		t.Errorf("query node %s, ingest node %s", got, want)
	}
	if most.Load() < 4 {
		t.Errorf("at most %d ranged reads ran at once over 8 blocks", most.Load())
	}
}
