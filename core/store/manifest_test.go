//go:build !js

package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// threeBlocks writes three flushed blocks of 1,000 events each and closes
// the DB; it returns each block's events and file, in id order.
func threeBlocks(t *testing.T, dir string) ([][]event, []string) {
	t.Helper()
	db, ds := openOne(t, dir)
	var evs [][]event
	for i := 0; i < 3; i++ {
		r := mixedRows(1000, int64(i+1)*1e17)
		evs = append(evs, eventsOfRows(r))
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	blocks, _ := filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk"))
	if len(blocks) != 3 {
		t.Fatalf("%d block files, want 3", len(blocks))
	}
	return evs, blocks
}

// openLogged opens dir with its log captured.
func openLogged(t *testing.T, dir string) (*DB, *Dataset, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	db, err := Open(dir, Options{CompactInterval: time.Hour, FlushInterval: time.Hour,
		Logf: func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := db.Get("logs")
	if err != nil {
		t.Fatal(err)
	}
	return db, ds, &log
}

// damageOf returns the dataset's damage as "name: reason" lines.
func damageOf(ds *Dataset) string {
	s := ds.Snapshot()
	defer s.Release()
	var b strings.Builder
	for _, d := range s.Damaged {
		b.WriteString(d.Name + ": " + d.Reason + "\n")
	}
	return b.String()
}

// The case: a block file deleted while the server is stopped.
// Open logs it and lists it as damage (queries say partial), and keeps
// doing so at every open; check fails naming the file until repair,
// after which the loss is still listed but the check passes.
func TestMissingBlockIsLoud(t *testing.T) {
	dir := t.TempDir()
	evs, blocks := threeBlocks(t, dir)
	os.Remove(blocks[1])
	for round := 0; round < 2; round++ {
		db, ds, log := openLogged(t, dir)
		checkEvents(t, ds, append(append([]event(nil), evs[0]...), evs[2]...))
		if dmg := damageOf(ds); !strings.Contains(dmg, filepath.Base(blocks[1])+": missing") {
			t.Errorf("open %d: damage %q", round, dmg)
		}
		if !strings.Contains(log.String(), filepath.Base(blocks[1])) {
			t.Errorf("open %d logged nothing about the missing block:\n%s", round, log)
		}
		db.Close()
	}
	probs, err := Check(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || !probs[0].Missing || !strings.HasSuffix(probs[0].File, filepath.Base(blocks[1])) {
		t.Fatalf("check: %+v", probs)
	}
	if _, err := Repair(dir, nil); err != nil {
		t.Fatal(err)
	}
	probs, _ = Check(dir, nil)
	if len(probs) != 1 || !probs[0].SetAside {
		t.Fatalf("check after repair: %+v", probs)
	}
	db, ds, _ := openLogged(t, dir)
	defer db.Close()
	if dmg := damageOf(ds); !strings.Contains(dmg, filepath.Base(blocks[1])+": missing") {
		t.Errorf("after repair: damage %q", dmg)
	}
}

// A block file cut short is set aside as corrupt, and check names it.
func TestTruncatedBlockIsLoud(t *testing.T) {
	dir := t.TempDir()
	evs, blocks := threeBlocks(t, dir)
	info, _ := os.Stat(blocks[0])
	os.Truncate(blocks[0], info.Size()-1)
	probs, _ := Check(dir, nil)
	if len(probs) != 1 || !strings.HasSuffix(probs[0].File, filepath.Base(blocks[0])) || probs[0].Torn {
		t.Fatalf("check: %+v", probs)
	}
	db, ds, log := openLogged(t, dir)
	defer db.Close()
	checkEvents(t, ds, append(append([]event(nil), evs[1]...), evs[2]...))
	if dmg := damageOf(ds); !strings.Contains(dmg, filepath.Base(blocks[0])) {
		t.Errorf("damage %q", dmg)
	}
	if !strings.Contains(log.String(), filepath.Base(blocks[0])) {
		t.Errorf("nothing logged:\n%s", log)
	}
}

// A directory written before the manifest opens whole, says it built
// one, and from then on a deleted block is reported.
func TestManifestBuiltForOldDirectory(t *testing.T) {
	dir := t.TempDir()
	evs, blocks := threeBlocks(t, dir)
	os.Remove(filepath.Join(dir, "logs", manifestName))
	db, ds, log := openLogged(t, dir)
	checkEvents(t, ds, append(append(append([]event(nil), evs[0]...), evs[1]...), evs[2]...))
	if dmg := damageOf(ds); dmg != "" {
		t.Errorf("damage in an intact old directory: %q", dmg)
	}
	if !strings.Contains(log.String(), "no block manifest") {
		t.Errorf("the log does not say the manifest was built:\n%s", log)
	}
	db.Close()
	os.Remove(blocks[2])
	db, ds, _ = openLogged(t, dir)
	defer db.Close()
	if dmg := damageOf(ds); !strings.Contains(dmg, filepath.Base(blocks[2])) {
		t.Errorf("a block deleted after the manifest was built: damage %q", dmg)
	}
}

// Compaction keeps the manifest exact: after a merge, and after a crash
// that left the merge's inputs behind, no block is reported missing.
func TestManifestFollowsCompaction(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	var want []event
	for i := 0; i < 5; i++ {
		r := mixedRows(40, int64(i+1)*1e17)
		want = append(want, eventsOfRows(r)...)
		ds.Append(r)
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	blockDir := filepath.Join(dir, "logs", "blocks")
	saved := filepath.Join(t.TempDir(), "blocks")
	copyDir(t, blockDir, saved)
	ds.compact()
	if n := ds.Info().NumBlocks; n != 1 {
		t.Fatalf("compaction left %d blocks", n)
	}
	crash(db)
	for round := 0; round < 2; round++ {
		db, ds, log := openLogged(t, dir)
		checkEvents(t, ds, want)
		if dmg := damageOf(ds); dmg != "" {
			t.Errorf("round %d: damage after compaction: %q\n%s", round, dmg, log)
		}
		crash(db)
		copyDir(t, saved, blockDir) // the inputs survive a crash before their unlink
	}
	if probs, _ := Check(dir, nil); len(probs) != 0 {
		t.Errorf("check: %+v", probs)
	}
}
