//go:build !js

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorruptBlockOnDisk damages a flushed block's column data and then
// its index: the first gives a typed error naming the file on read, the
// second sets the block aside at open with a notice.
func TestCorruptBlockOnDisk(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	ds.Append(mixedRows(200, 1e18))
	ds.Flush()
	db.Close()
	blocks, _ := filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk"))
	if len(blocks) != 1 {
		t.Fatalf("want 1 block file, got %v", blocks)
	}
	data, _ := os.ReadFile(blocks[0])
	bad := append([]byte(nil), data...)
	bad[headerLen+3] ^= 0xff // inside the first column blob (_time)
	os.WriteFile(blocks[0], bad, 0o644)

	db, ds = openOne(t, dir)
	s := ds.Snapshot()
	_, err := s.Parts[0].ReadColumn(timeKey)
	var ce *CorruptionError
	if !errors.As(err, &ce) || ce.File != blocks[0] || ce.Offset != headerLen {
		t.Fatalf("ReadColumn error = %v, want *CorruptionError at %s:%d", err, blocks[0], headerLen)
	}
	s.Release()
	db.Close()

	bad = append([]byte(nil), data...)
	bad[len(bad)-trailerLen-2] ^= 0xff // inside the index
	os.WriteFile(blocks[0], bad, 0o644)
	var notes []string
	db, err = Open(dir, Options{Logf: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, _ = db.Get("logs")
	if ds.Info().NumBlocks != 0 || len(notes) == 0 || !strings.Contains(notes[0], "corrupt") {
		t.Fatalf("corrupt block not set aside: blocks=%d notes=%q", ds.Info().NumBlocks, notes)
	}
	if _, err := os.Stat(blocks[0] + ".corrupt"); err != nil {
		t.Fatalf("corrupt block not kept for inspection: %v", err)
	}
}

// TestWALTornTailOnDisk damages the tail of the WAL after a crash: open
// keeps the intact records, cuts the rest, and later appends survive.
func TestWALTornTailOnDisk(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	var want []event
	for i := 0; i < 5; i++ {
		r := mixedRows(10, int64(i+1)*1e16)
		if i < 4 {
			want = append(want, eventsOfRows(r)...)
		}
		ds.Append(r)
	}
	crash(db)
	segs, _ := filepath.Glob(filepath.Join(dir, "logs", "wal", "*.wal"))
	data, _ := os.ReadFile(segs[len(segs)-1])
	data[len(data)-5] ^= 0x10
	os.WriteFile(segs[len(segs)-1], data, 0o644)

	db, ds = openOne(t, dir)
	checkEvents(t, ds, want)
	r := mixedRows(7, 9e16)
	want = append(want, eventsOfRows(r)...)
	ds.Append(r)
	crash(db)
	db, ds = openOne(t, dir)
	defer db.Close()
	checkEvents(t, ds, want)
}
