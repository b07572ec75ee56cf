//go:build !js

package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A flipped byte anywhere in a record in the middle of a segment costs
// that record only: the scan finds the next one and reports the damage,
// not a torn tail.
func TestWALSkipsDamagedRecord(t *testing.T) {
	seg, offs := sampleWAL(t, 6)
	for i := offs[2]; i < offs[3]; i++ {
		bad := append([]byte(nil), seg...)
		bad[i] ^= 0x21
		n, scan := scanDamage(bad)
		if n != 5 || scan.tail != nil || len(scan.damage) != 1 || scan.damage[0].from != offs[2] || scan.damage[0].to != offs[3] {
			t.Fatalf("flip at %d: %d records, damage %+v, tail %v", i, n, scan.damage, scan.tail)
		}
		if kept := scan.keep(bad); len(kept) != len(seg)-(offs[3]-offs[2]) {
			t.Fatalf("flip at %d: the rewritten segment has %d bytes", i, len(kept))
		}
	}
}

// appendFrameV1 is the version 1 record framing (no magic, no header CRC).
func appendFrameV1(b []byte, seq uint64, payload []byte) []byte {
	var s [8]byte
	binary.LittleEndian.PutUint64(s[:], seq)
	sum := crc32.Update(crc32.Checksum(s[:], castagnoli), castagnoli, payload)
	b = putU32(b, uint32(8+len(payload)))
	b = putU32(b, sum)
	b = append(b, s[:]...)
	return append(b, payload...)
}

// Segments written before version 2 are still read, and damage in the
// middle of one is skipped the same way (found again by length, seq and
// CRC).
func TestWALVersion1StillRead(t *testing.T) {
	seg := append([]byte(walMagic), 1, 0)
	var offs []int
	for i := 0; i < 6; i++ {
		p, err := encodeRows(nil, mixedRows(5+i, int64(i)*1e15))
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, len(seg))
		seg = appendFrameV1(seg, uint64(i+1), p)
	}
	if n, scan := scanDamage(seg); n != 6 || scan.tail != nil || len(scan.damage) != 0 {
		t.Fatalf("intact v1 segment: %d records, %+v", n, scan)
	}
	for i := offs[2]; i < offs[3]; i++ {
		bad := append([]byte(nil), seg...)
		bad[i] ^= 0x21
		if n, scan := scanDamage(bad); n != 5 || scan.tail != nil || len(scan.damage) != 1 {
			t.Fatalf("v1 flip at %d: %d records, damage %+v, tail %v", i, n, scan.damage, scan.tail)
		}
	}
	if n, scan := scanDamage(seg[:offs[5]+3]); n != 5 || scan.tail == nil || len(scan.damage) != 0 {
		t.Fatalf("v1 torn tail: %d records, %+v", n, scan)
	}
}

// twentyRecords appends 20 batches of 10 events, crashes, and flips one
// byte in the middle of the 10th record of the WAL.
func twentyRecords(t *testing.T, dir string) (want []event, seg string) {
	t.Helper()
	db, ds := openOne(t, dir)
	for i := 0; i < 20; i++ {
		r := mixedRows(10, int64(i+1)*1e16)
		if i != 9 {
			want = append(want, eventsOfRows(r)...)
		}
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	crash(db)
	segs, _ := filepath.Glob(filepath.Join(dir, "logs", "wal", "*.wal"))
	seg = segs[len(segs)-1]
	flipRecord(t, seg, 10)
	return want, seg
}

// flipRecord flips a bit in the middle of the payload of record k
// (counted from 1) of a segment file.
func flipRecord(t *testing.T, seg string, k int) {
	t.Helper()
	data, _ := os.ReadFile(seg)
	n := 0
	scanWAL(seg, data, 0, func(seq uint64, payload []byte, off int64) bool {
		if n++; n == k {
			data[int(off)+len(payload)/2] ^= 0x40
		}
		return true
	})
	if n < k {
		t.Fatalf("%s has %d records", seg, n)
	}
	if err := os.WriteFile(seg, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The case: a byte flipped in the 10th of 20 acknowledged
// records of the last segment. Open keeps the 19 intact records (190
// events, not 90), sets the damaged bytes aside in a file it keeps
// listing as damage (so queries say partial) across restarts, and Check
// reports the damage with its segment and offset before open.
func TestWALDamageInLastSegmentKeepsTheRest(t *testing.T) {
	dir := t.TempDir()
	want, seg := twentyRecords(t, dir)
	probs, err := Check(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Torn || probs[0].SetAside || !strings.Contains(probs[0].File, filepath.Base(seg)) || !strings.Contains(probs[0].Reason, "at offset ") {
		t.Fatalf("check before open: %+v", probs)
	}
	var logged bytes.Buffer
	db, err := Open(dir, Options{Logf: func(f string, a ...any) { fmt.Fprintf(&logged, f+"\n", a...) }})
	if err != nil {
		t.Fatal(err)
	}
	ds, _ := db.Get("logs")
	checkEvents(t, ds, want)
	if len(want) != 190 {
		t.Fatalf("want %d events", len(want))
	}
	s := ds.Snapshot()
	damaged := s.Damaged
	s.Release()
	if len(damaged) != 1 || !strings.HasPrefix(damaged[0].Name, "wal/"+filepath.Base(seg)+".") || !strings.HasSuffix(damaged[0].Name, ".corrupt") {
		t.Fatalf("snapshot damage: %+v", damaged)
	}
	if _, err := os.Stat(filepath.Join(dir, "logs", damaged[0].Name)); err != nil {
		t.Fatalf("damaged bytes not set aside: %v", err)
	}
	if !strings.Contains(logged.String(), "set aside") {
		t.Errorf("nothing logged:\n%s", logged.String())
	}
	crash(db)
	db, ds = openOne(t, dir)
	checkEvents(t, ds, want)
	s = ds.Snapshot()
	if len(s.Damaged) != 1 {
		t.Errorf("after a second open the damage is %+v", s.Damaged)
	}
	s.Release()
	crash(db)
	probs, _ = Check(dir, nil)
	if len(probs) != 1 || !probs[0].SetAside {
		t.Errorf("check after open: %+v", probs)
	}
}

// Repair sets the damage aside the same way, and the dataset then opens
// with the 190 events and the damage listed.
func TestRepairSetsWALDamageAside(t *testing.T) {
	dir := t.TempDir()
	want, _ := twentyRecords(t, dir)
	if _, err := Repair(dir, nil); err != nil {
		t.Fatal(err)
	}
	aside, _ := filepath.Glob(filepath.Join(dir, "logs", "wal", "*.corrupt"))
	if len(aside) != 1 {
		t.Fatalf("repair set aside %v", aside)
	}
	probs, _ := Check(dir, nil)
	if len(probs) != 1 || !probs[0].SetAside {
		t.Fatalf("check after repair: %+v", probs)
	}
	db, ds := openOne(t, dir)
	defer db.Close()
	checkEvents(t, ds, want)
	s := ds.Snapshot()
	defer s.Release()
	if len(s.Damaged) != 1 {
		t.Errorf("damage after repair: %+v", s.Damaged)
	}
}

// Damage in a segment whose records are all in durable blocks already
// loses nothing: it is cut out without being reported.
func TestWALDamageAlreadyFlushedIsNotALoss(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	want := appendBatches(t, ds, 4)
	walDir := filepath.Join(dir, "logs", "wal")
	saved := filepath.Join(t.TempDir(), "wal")
	copyDir(t, walDir, saved)
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	crash(db)
	os.RemoveAll(walDir)
	copyDir(t, saved, walDir) // the crash window: blocks durable, WAL not yet removed
	segs, _ := filepath.Glob(filepath.Join(walDir, "*.wal"))
	flipRecord(t, segs[0], 2)
	db, ds = openOne(t, dir)
	defer db.Close()
	checkEvents(t, ds, want)
	s := ds.Snapshot()
	defer s.Release()
	if len(s.Damaged) != 0 {
		t.Errorf("damage reported for flushed records: %+v", s.Damaged)
	}
}

// A dataset whose WAL was written in version 1 (before the record magic)
// opens and replays it whole, and new records go to a version 2 segment.
func TestWALVersion1SegmentReplays(t *testing.T) {
	dir := t.TempDir()
	db, ds := openOne(t, dir)
	want := appendBatches(t, ds, 5)
	crash(db)
	segs, _ := filepath.Glob(filepath.Join(dir, "logs", "wal", "*.wal"))
	seg := segs[len(segs)-1]
	data, _ := os.ReadFile(seg)
	old := append([]byte(walMagic), 1, 0)
	scanWAL(seg, data, 0, func(seq uint64, payload []byte, off int64) bool {
		old = appendFrameV1(old, seq, payload)
		return true
	})
	os.WriteFile(seg, old, 0o644)
	db, ds = openOne(t, dir)
	checkEvents(t, ds, want)
	r := mixedRows(7, 9e16)
	want = append(want, eventsOfRows(r)...)
	if _, err := ds.Append(r); err != nil {
		t.Fatal(err)
	}
	crash(db)
	db, ds = openOne(t, dir)
	defer db.Close()
	checkEvents(t, ds, want)
	s := ds.Snapshot()
	defer s.Release()
	if len(s.Damaged) != 0 {
		t.Errorf("damage: %+v", s.Damaged)
	}
}

// A damaged segment header in front of intact records loses nothing but
// the header: the records are kept and the segment rewritten whole.
func TestWALDamagedHeaderKeepsRecords(t *testing.T) {
	seg, _ := sampleWAL(t, 4)
	bad := append([]byte(nil), seg...)
	bad[2] ^= 0x01
	n, scan := scanDamage(bad)
	if n != 4 || scan.tail != nil || len(scan.damage) != 1 || scan.damage[0].from != 0 {
		t.Fatalf("%d records, %+v", n, scan)
	}
	if n, scan := scanDamage(scan.keep(bad)); n != 4 || scan.tail != nil || len(scan.damage) != 0 {
		t.Fatalf("rewritten: %d records, %+v", n, scan)
	}
}

// appendBatches appends n batches of ten events, a batch a WAL record, and
// returns the events appended.
func appendBatches(t *testing.T, ds *Dataset, n int) []event {
	t.Helper()
	var want []event
	for i := 0; i < n; i++ {
		r := mixedRows(10, int64(i+1)*1e16)
		want = append(want, eventsOfRows(r)...)
		if _, err := ds.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	return want
}
