//go:build !js

package store

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
)

// A dataset whose appends never pause (a live log stream) still gets
// compact blocks: once a full-size block is older than CompactAge by the
// store's clock it is merged while the appends go on. Before CompactAge
// existed, full-size blocks waited for an idle moment that a live stream
// never has.
func TestSustainedIngestCompacts(t *testing.T) {
	clk := testutil.NewClock(time.Unix(1e9, 0))
	db, err := Open(t.TempDir(), Options{NoSync: true, FlushInterval: 24 * time.Hour, SealRows: 100, FlushRows: 100,
		IdleFlush: 24 * time.Hour, CompactIdle: 2 * time.Hour, CompactAge: time.Hour,
		CompactInterval: 20 * time.Millisecond, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, _ := db.Create("logs")
	const batches = 40
	for i := range batches {
		if _, err := ds.Append(mixedRows(100, 1e18+int64(i)*1e12)); err != nil {
			t.Fatal(err)
		}
	}
	// The blocks age past CompactAge while the stream goes on: an append
	// at the new time keeps the dataset live, short of CompactIdle.
	clk.Advance(time.Hour)
	if _, err := ds.Append(mixedRows(1, 3e18)); err != nil {
		t.Fatal(err)
	}
	// Each append of 100 rows sealed a full-size block; without the age
	// rule all 40 stay.
	testutil.Eventually(t, 20*time.Second, func() bool { return ds.Info().NumBlocks <= batches/4 },
		"more than %d blocks from %d full-size appends to a live dataset", batches/4, batches)
	if n, want := ds.Info().NumEvents, int64(batches*100); n < want {
		t.Fatalf("%d events after compaction, want at least %d", n, want)
	}
}

// Under sustained ingest a merge takes blocks of one size tier, so a
// block is not rewritten again and again as fragments arrive beside it.
func TestMergeTiers(t *testing.T) {
	for _, c := range []struct {
		rows []int
		want []int // rows of the group picked; nil for none
	}{
		{[]int{100, 100, 100, 100}, []int{100, 100, 100, 100}},
		{[]int{5000, 100, 100, 100}, nil},                          // three fragments wait for a fourth
		{[]int{5000, 100, 100, 100, 90}, []int{100, 100, 100, 90}}, // the big one is left out
		{[]int{60000, 40000, 20000, 64000}, []int{60000, 40000, 20000, 64000}},
	} {
		got := tierGroup(c.rows)
		if len(got) != len(c.want) {
			t.Errorf("tierGroup(%v) = %v, want %v", c.rows, got, c.want)
			continue
		}
		for i := range got {
			if c.rows[got[i]] != c.want[i] {
				t.Errorf("tierGroup(%v) = %v, want rows %v", c.rows, got, c.want)
				break
			}
		}
	}
}

// On object storage, merges of a live stream's aged blocks swap blocks in
// the catalog while flushes keep adding others. A query node refreshing
// throughout never counts an event twice or misses one it counted
// before: every version it reads is a whole state of the dataset.
func TestSustainedIngestOnObjectsStaysExact(t *testing.T) {
	objs := NewMemObjects()
	db := mustObjDB(t, t.TempDir(), Options{Objects: objs, NoSync: true, FlushInterval: time.Hour,
		SealRows: 100, FlushRows: 100, IdleFlush: time.Hour, CompactIdle: time.Hour,
		CompactAge: 150 * time.Millisecond, CompactInterval: 30 * time.Millisecond})
	defer db.Close()
	ds, _ := db.Create("logs")
	if _, err := ds.Append(mixedRows(100, 1e18)); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	ro, rds := openReader(t, objs)
	var appended atomic.Int64
	appended.Store(100)
	done, stop := make(chan struct{}), make(chan struct{})
	var appendErr error
	go func() {
		defer close(done)
		for i := 1; i < 40; i++ {
			// Counted before it is sent: a flush may publish the rows
			// before Append returns.
			appended.Add(100)
			if _, appendErr = ds.Append(mixedRows(100, 1e18+int64(i)*1e12)); appendErr != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-time.After(25 * time.Millisecond):
			}
		}
	}()
	defer func() { close(stop); <-done }()
	last, merges := int64(0), 0
	lastBlocks := 0
	check := func() {
		if err := ro.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		in := rds.Info()
		if in.NumEvents < last || in.NumEvents > appended.Load() || in.NumEvents%100 != 0 {
			t.Fatalf("query node counts %d events after %d, with %d appended", in.NumEvents, last, appended.Load())
		}
		if in.NumBlocks < lastBlocks {
			merges++
		}
		last, lastBlocks = in.NumEvents, in.NumBlocks
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(10 * time.Millisecond):
		}
		check()
	}
	if appendErr != nil {
		t.Fatal(appendErr)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 20*time.Second, func() bool { check(); return last == 4000 && ds.Info().NumBlocks <= 10 },
		"the query node does not count 4000 events, or the ingest node keeps more than 10 blocks")
	if merges == 0 {
		t.Fatal("the query node never saw a merge while the stream ran")
	}
}

// When a live stream stops, its backlog is merged once the dataset is
// idle, not after the pause compaction took while the stream ran: a pause
// stretched to minutes here must not delay the idle merge.
func TestIdleEndsLivePause(t *testing.T) {
	defer func(p int) { livePause = p }(livePause)
	livePause = 100_000
	db, err := Open(t.TempDir(), Options{NoSync: true, FlushInterval: time.Hour, SealRows: 100, FlushRows: 100,
		IdleFlush: time.Hour, CompactIdle: 300 * time.Millisecond, CompactAge: 50 * time.Millisecond,
		CompactInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, _ := db.Create("logs")
	for i := range 24 {
		if _, err := ds.Append(mixedRows(100, 1e18+int64(i)*1e12)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopped := time.Now()
	for ds.Info().NumBlocks > 2 {
		if time.Since(stopped) > 3*time.Second {
			t.Fatalf("%d blocks 3 s after the stream stopped (idle after 0.3 s)", ds.Info().NumBlocks)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
