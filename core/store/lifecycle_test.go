//go:build !js

package store

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// TestGroupCommit: concurrent appends share fsyncs, and each returns only
// once its batch is visible.
func TestGroupCommit(t *testing.T) {
	db, ds := openOne(t, t.TempDir())
	defer db.Close()
	const writers, each = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				r := mixedRows(3, int64(w*1000+i)*1e9)
				if _, err := ds.Append(r); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	ds.Flush() // syncs is the committer's; read it after a round trip
	syncs := ds.files.(*osFiles).syncs
	if syncs >= writers*each {
		t.Fatalf("%d fsyncs for %d appends: no group commit", syncs, writers*each)
	}
	if n := ds.Info().NumEvents; n != writers*each*3 {
		t.Fatalf("%d events, want %d", n, writers*each*3)
	}
	t.Logf("%d appends, %d fsyncs", writers*each, syncs)
}

// TestCloseFlushesAndReopens: Close writes the buffer to blocks, leaves an
// empty WAL, and a reopened DB lists the same datasets and events.
func TestCloseFlushesAndReopens(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	if _, err := db.Create("other"); err != nil {
		t.Fatal(err)
	}
	r := mixedRows(100, 1e18)
	ds.Append(r)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.Append(r); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "logs", "wal", "*.wal"))
	for _, s := range segs {
		if st, _ := os.Stat(s); st.Size() > walHeaderLen {
			t.Fatalf("WAL segment %s still holds records after Close", s)
		}
	}
	db, ds = openOne(t, dir)
	defer db.Close()
	if names := db.List(); len(names) != 2 || names[0].Name() != "logs" || names[1].Name() != "other" {
		t.Fatalf("List = %v", names)
	}
	if ds.Info().NumBlocks != 1 || ds.Info().Created.IsZero() {
		t.Fatalf("info after reopen = %+v", ds.Info())
	}
	checkEvents(t, ds, eventsOfRows(r))
	if err := db.Delete("other"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other")); !os.IsNotExist(err) {
		t.Fatalf("deleted dataset directory still there: %v", err)
	}
}

// TestFlushIntervalMakesBlocks: buffered rows reach a durable block on
// their own once FlushInterval has passed by the store's clock, and not
// before.
func TestFlushIntervalMakesBlocks(t *testing.T) {
	clk := testutil.NewClock(time.Unix(1e9, 0))
	db, err := Open(t.TempDir(), Options{FlushInterval: time.Hour, IdleFlush: 2 * time.Hour, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, _ := db.Create("logs")
	if _, err := ds.Append(mixedRows(10, 1e18)); err != nil {
		t.Fatal(err)
	}
	durable := func() bool {
		s := ds.Snapshot()
		defer s.Release()
		bp, ok := s.Parts[0].(*blockPart)
		return len(s.Parts) == 1 && ok && bp.durable
	}
	clk.Advance(time.Hour - time.Second)
	if durable() {
		t.Fatal("a block before FlushInterval")
	}
	clk.Advance(time.Second)
	testutil.Eventually(t, 10*time.Second, durable, "no durable block after FlushInterval")
}

// TestAppendRejectsMalformedRows: a bad batch is an error, not a corrupt
// WAL.
func TestAppendRejectsMalformedRows(t *testing.T) {
	db := OpenMemory(Options{})
	defer db.Close()
	ds, _ := db.Create("x")
	good := mixedRows(4, 1e18)
	bad := []*Rows{
		nil,
		{N: 2, Time: []int64{1}},
		{N: 1, Time: []int64{1}, Keys: []ColKey{{"a", 2}}, Cols: nil},
		{N: good.N, Time: good.Time, Keys: []ColKey{{TimeField, 5}}, Cols: []*vector.Vector{vecOf(5, int64(1), int64(2), int64(3), int64(4))}},
		{N: 1, Time: []int64{1}, Keys: []ColKey{{"d", 7}}, Cols: []*vector.Vector{vecOf(7, struct{}{})}},
	}
	for i, r := range bad {
		if _, err := ds.Append(r); err == nil {
			t.Errorf("bad batch %d accepted", i)
		}
	}
	if ds.Info().NumEvents != 0 {
		t.Fatal("a rejected batch left events behind")
	}
}
