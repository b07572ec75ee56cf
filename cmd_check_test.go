package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/store"
)

// check finds a damaged column and exits 1; repair sets the block aside;
// check then passes.
func TestCheckAndRepair(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := db.Create("logs")
	for i := 0; i < 2; i++ {
		b := store.NewRowsBuilder()
		for j := 0; j < 100; j++ {
			b.Begin()
			b.SetTime(int64(j) * 1e9)
			b.SetString("msg", "event")
			b.End(0)
		}
		ds.Append(b.Finish(0))
		ds.Flush()
	}
	db.Close()
	out, _, code := aplite(t, "", "check", dir)
	if code != 0 || !strings.Contains(out, "every checksum is valid") {
		t.Fatalf("check of a healthy dir: %d %s", code, out)
	}
	blocks, _ := filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk"))
	raw, _ := os.ReadFile(blocks[0])
	ioff := int(binary.LittleEndian.Uint64(raw[len(raw)-20:]))
	raw[ioff-2] ^= 0xff // the last column blob
	os.WriteFile(blocks[0], raw, 0o644)
	out, _, code = aplite(t, "", "check", dir)
	if code != 1 || !strings.Contains(out, filepath.Base(blocks[0])) || !strings.Contains(out, "checksum") {
		t.Fatalf("check of a damaged dir: %d %s", code, out)
	}
	out, _, code = aplite(t, "", "repair", dir)
	if code != 0 || !strings.Contains(out, "set aside") {
		t.Fatalf("repair: %d %s", code, out)
	}
	if _, err := os.Stat(blocks[0] + ".corrupt"); err != nil {
		t.Fatalf("repair left no .corrupt file: %v", err)
	}
	if out, _, code = aplite(t, "", "check", dir); code != 0 {
		t.Fatalf("check after repair: %d %s", code, out)
	}
	if _, errOut, code := aplite(t, "", "check"); code != 2 || !strings.Contains(errOut, "usage") {
		t.Errorf("check without a directory: %d %s", code, errOut)
	}
}

// A byte flipped in the 10th of 20 WAL records (a crash image: the
// server never flushed) is damage, not a torn tail: check exits 1 naming
// the segment and the offset, repair moves the damaged bytes to a
// .corrupt file and keeps the 19 intact records, and check then passes
// while still listing what was lost.
func TestCheckAndRepairWALDamage(t *testing.T) {
	dir, crashed := t.TempDir(), t.TempDir()
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := db.Create("logs")
	for i := 0; i < 20; i++ {
		b := store.NewRowsBuilder()
		for j := 0; j < 10; j++ {
			b.Begin()
			b.SetTime(int64(i*10+j) * 1e9)
			b.SetString("msg", "event")
			b.End(0)
		}
		if _, err := ds.Append(b.Finish(0)); err != nil {
			t.Fatal(err)
		}
	}
	copyFiles(t, dir, crashed)
	db.Close()
	segs, _ := filepath.Glob(filepath.Join(crashed, "logs", "wal", "*.wal"))
	seg := segs[len(segs)-1]
	data, _ := os.ReadFile(seg)
	head, lenAt := 8, 0
	if data[6] == 2 {
		head, lenAt = 16, 4
	}
	off := 8
	for i := 1; i < 10; i++ {
		off += head + int(binary.LittleEndian.Uint32(data[off+lenAt:]))
	}
	data[off+head+20] ^= 0x40
	os.WriteFile(seg, data, 0o644)

	out, _, code := aplite(t, "", "check", crashed)
	if code != 1 || !strings.Contains(out, filepath.Base(seg)) || !strings.Contains(out, "offset "+strconv.Itoa(off)) {
		t.Fatalf("check of a damaged WAL (record at %d): %d %s", off, code, out)
	}
	out, _, code = aplite(t, "", "repair", crashed)
	aside, _ := filepath.Glob(seg + ".*.corrupt")
	if code != 0 || !strings.Contains(out, "set aside") || len(aside) != 1 {
		t.Fatalf("repair: %d %s (set aside: %v)", code, out, aside)
	}
	out, _, code = aplite(t, "", "check", crashed)
	if code != 0 || !strings.Contains(out, filepath.Base(aside[0])) {
		t.Fatalf("check after repair: %d %s", code, out)
	}
	db, err = store.Open(crashed, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, _ := db.Get("logs")
	s := got.Snapshot()
	defer s.Release()
	rows := 0
	for _, p := range s.Parts {
		rows += p.Rows()
	}
	if rows != 190 || len(s.Damaged) != 1 {
		t.Errorf("after repair: %d events, damage %+v", rows, s.Damaged)
	}
}

// copyFiles copies the regular files under src (but the lock) to dst.
func copyFiles(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if info.Name() == "LOCK" || !info.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A block file deleted while the server is stopped fails the check,
// named; repair records the loss (blocks/<id>.blk.missing) and the check
// then passes, still listing it.
func TestCheckMissingBlock(t *testing.T) {
	dir := t.TempDir()
	db, err := store.Open(dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := db.Create("logs")
	for i := 0; i < 2; i++ {
		b := store.NewRowsBuilder()
		for j := 0; j < 100; j++ {
			b.Begin()
			b.SetTime(int64(j) * 1e9)
			b.SetString("msg", "event")
			b.End(0)
		}
		ds.Append(b.Finish(0))
		ds.Flush()
	}
	db.Close()
	blocks, _ := filepath.Glob(filepath.Join(dir, "logs", "blocks", "*.blk"))
	os.Remove(blocks[0])
	out, _, code := aplite(t, "", "check", dir)
	if code != 1 || !strings.Contains(out, filepath.Base(blocks[0])) || !strings.Contains(out, "missing") {
		t.Fatalf("check with a block file gone: %d %s", code, out)
	}
	out, _, code = aplite(t, "", "repair", dir)
	if code != 0 || !strings.Contains(out, "set aside") {
		t.Fatalf("repair: %d %s", code, out)
	}
	out, _, code = aplite(t, "", "check", dir)
	if code != 0 || !strings.Contains(out, filepath.Base(blocks[0])) {
		t.Fatalf("check after repair: %d %s", code, out)
	}
}
