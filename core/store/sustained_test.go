//go:build !js

package store

import (
	"testing"
	"time"
)

// A dataset whose appends never pause (a live log stream) still gets
// compact blocks: once a full-size block is older than CompactAge it is
// merged while the appends go on. Before CompactAge existed, full-size
// blocks waited for an idle moment that a live stream never has.
func TestSustainedIngestCompacts(t *testing.T) {
	db, err := Open(t.TempDir(), Options{NoSync: true, FlushInterval: time.Hour, SealRows: 100, FlushRows: 100,
		IdleFlush: time.Hour, CompactIdle: time.Hour, CompactAge: 300 * time.Millisecond,
		CompactInterval: 50 * time.Millisecond})
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
		time.Sleep(40 * time.Millisecond) // 1.6 s of appends, never idle for CompactIdle
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		blocks := ds.Info().NumBlocks
		// Each append of 100 rows seals a full-size block; without the
		// age rule all 40 stay.
		if blocks <= batches/4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d blocks from %d full-size appends to a live dataset; want at most %d", blocks, batches, batches/4)
		}
		if _, err := ds.Append(mixedRows(1, 3e18)); err != nil { // keep the dataset live
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
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
