package store

import (
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
)

// A merge waits while a query holds a snapshot (logs are searched most
// while their blocks are being merged, and the merge took the query's
// cores), then finishes once the query is done, with every event kept.
func TestCompactionStepsAsideForQueries(t *testing.T) {
	defer func(p int) { queryPause = p }(queryPause)
	queryPause = 1 << 30 // the bound is TestMergePacerBoundsItsWait's
	clk := testutil.NewClock(time.Unix(1e9, 0))
	db := OpenMemory(Options{SealRows: 100, FlushRows: 100, CompactInterval: time.Hour, Now: clk.Now})
	defer db.Close()
	ds, _ := db.Create("logs")
	for i := range 4 {
		if _, err := ds.Append(mixedRows(100, 1e18+int64(i)*1e12)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := ds.Info().NumBlocks; n != 4 {
		t.Fatalf("%d blocks before the merge, want 4", n)
	}
	clk.Advance(time.Hour) // idle: every small block is merged

	asked := make(chan struct{}, 1)
	var mu sync.Mutex
	fire := false // the gate's timer fires only once the test says so
	db.queries.after = func(time.Duration) <-chan time.Time {
		select {
		case asked <- struct{}{}:
		default:
		}
		c := make(chan time.Time, 1)
		mu.Lock()
		if fire {
			c <- time.Time{}
		}
		mu.Unlock()
		return c
	}

	query := ds.Snapshot()
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		ds.compact()
	}()
	select {
	case <-asked: // the merge waits for the query
	case <-merged:
		query.Release()
		t.Fatalf("the merge ran to its end while a query held a snapshot (%d blocks)", ds.Info().NumBlocks)
	}
	if n := ds.Info().NumBlocks; n != 4 {
		t.Fatalf("%d blocks while the merge waits for the query, want the 4 it started from", n)
	}
	mu.Lock()
	fire = true
	mu.Unlock()
	query.Release()
	<-merged
	if info := ds.Info(); info.NumBlocks != 1 || info.NumEvents != 400 {
		t.Fatalf("after the query: %d blocks, %d events; want 1 block of 400", info.NumBlocks, info.NumEvents)
	}
}

// A query that never ends does not stop compaction: a merge waits at most
// queryPause times its own working time.
func TestMergePacerBoundsItsWait(t *testing.T) {
	var g queryGate
	g.enter() // a query that outlives the test
	p := newMergePacer(&g, nil)
	p.worked = 5 * time.Millisecond
	pauseWithin(t, p, "for a query that does not end")
	if budget := time.Duration(queryPause) * p.worked; p.waited < budget-time.Millisecond {
		t.Fatalf("the merge waited %v of its %v (working %v): it did not step aside", p.waited, budget, p.worked)
	}
}

// Once the queries are over, a merge goes on after queryQuiet without
// waiting out its whole allowance.
func TestMergePacerGoesOnWhenQuiet(t *testing.T) {
	var g queryGate
	p := newMergePacer(&g, nil)
	p.worked = time.Hour // an allowance the test would notice
	pauseWithin(t, p, "with no query ever run")
	g.enter()
	g.leave()
	pauseWithin(t, p, "after the last query ended")
	if p.waited > 5*time.Second {
		t.Fatalf("the merge waited %v after the last query ended, want about %v", p.waited, queryQuiet)
	}
}

// pauseWithin fails t if p.pause takes more than 10 s.
func pauseWithin(t *testing.T, p *mergePacer, when string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.pause()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("a merge still waits after 10 s %s", when)
	}
}
