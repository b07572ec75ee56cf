package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
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
