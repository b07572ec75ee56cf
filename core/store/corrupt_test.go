package store

import (
	"errors"
	"math"
	"testing"

	"github.com/aplite/aplite/vector"
)

// sampleBlock returns the bytes of a small block holding every type.
func sampleBlock(t testing.TB, n int) []byte {
	cs, err := mergeParts([]Part{NewRowsPart("m", mixedRows(n, 1e18))}, math.MinInt64)
	if err != nil {
		t.Fatal(err)
	}
	data, err := encodeBlock(cs, blockMeta{walSeqMax: 1})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// samplePagedBlock is sampleBlock with its string columns in pages of 64
// rows, small enough for a fuzz seed.
func samplePagedBlock(t testing.TB, n int) []byte {
	cs, err := mergeParts([]Part{NewRowsPart("m", mixedRows(n, 1e18))}, math.MinInt64)
	if err != nil {
		t.Fatal(err)
	}
	data, err := encodeBlock(cs, blockMeta{walSeqMax: 1, smallPages: 64})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// readAll parses a block and decodes every column, returning the first
// error. Any error must be a *CorruptionError.
func readAll(t testing.TB, data []byte) error {
	p, err := newBlockPart(1, "blk", data, nil)
	if err == nil {
		for _, m := range p.Columns() {
			if _, err = p.ReadColumn(m.Key); err != nil {
				break
			}
			if pr := p.PageRows(m.Key); pr > 0 {
				if _, err = p.ReadPages(m.Key, 0, (p.Rows()-1)/pr); err != nil {
					break
				}
			}
		}
	}
	var ce *CorruptionError
	if err != nil && !errors.As(err, &ce) {
		t.Fatalf("error is %T, want *CorruptionError: %v", err, err)
	}
	return err
}

// TestBlockByteFlipsDetected flips each byte of a block in turn: every
// flip must surface as a *CorruptionError (header, blobs, index and trailer
// are all covered by a check), never a panic or silently wrong data.
func TestBlockByteFlipsDetected(t *testing.T) {
	t.Run("one page", func(t *testing.T) { byteFlipsDetected(t, sampleBlock(t, 100)) })
	t.Run("pages", func(t *testing.T) {
		data := samplePagedBlock(t, 150)
		p, err := newBlockPart(1, "blk", data, nil)
		if err != nil || p.PageRows(ColKey{Name: "msg", Type: vector.String}) != 64 {
			t.Fatalf("sample is not paged: %v", err)
		}
		byteFlipsDetected(t, data)
	})
}

func byteFlipsDetected(t *testing.T, data []byte) {
	if err := readAll(t, data); err != nil {
		t.Fatalf("intact block: %v", err)
	}
	for i := range data {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x5a
		if err := readAll(t, bad); err == nil {
			t.Fatalf("flip at offset %d of %d went undetected", i, len(data))
		}
	}
	for n := 0; n < len(data); n += 7 {
		if err := readAll(t, data[:n]); err == nil {
			t.Fatalf("block truncated to %d bytes went undetected", n)
		}
	}
}

// sampleWAL returns a segment with n records and each record's offset.
func sampleWAL(t testing.TB, n int) ([]byte, []int) {
	seg := walHeader()
	var offs []int
	for i := 0; i < n; i++ {
		p, err := encodeRows(nil, mixedRows(5+i, int64(i)*1e15))
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, len(seg))
		seg = appendFrame(seg, uint64(i+1), p)
	}
	return seg, offs
}

// scanAll counts the records scanWAL accepts and decodes, and returns
// where the torn tail starts and why (damage before it is in scanDamage).
func scanAll(data []byte) (int, int, *CorruptionError) {
	n, scan := scanDamage(data)
	return n, scan.valid, scan.tail
}

// scanDamage is scanAll with the whole scan.
func scanDamage(data []byte) (int, walScan) {
	n := 0
	scan := scanWAL("wal", data, 0, func(seq uint64, payload []byte, off int64) bool {
		if decodeRows(newReader("wal", off, payload)) == nil {
			return false
		}
		n++
		return true
	})
	return n, scan
}

// TestWALTornTail truncates and damages the last record: the reader must
// return exactly the records before it and the offset where it starts.
func TestWALTornTail(t *testing.T) {
	seg, offs := sampleWAL(t, 6)
	last := offs[len(offs)-1]
	if n, valid, err := scanAll(seg); n != 6 || valid != len(seg) || err != nil {
		t.Fatalf("intact segment: %d records, valid %d, %v", n, valid, err)
	}
	for cut := last; cut < len(seg); cut++ {
		n, valid, err := scanAll(seg[:cut])
		if n != 5 || valid != last || (cut > last && err == nil) {
			t.Fatalf("cut at %d: %d records, valid prefix %d (want 5, %d), err %v", cut, n, valid, last, err)
		}
	}
	for i := last; i < len(seg); i++ {
		bad := append([]byte(nil), seg...)
		bad[i] ^= 0x21
		n, valid, err := scanAll(bad)
		if n != 5 || valid != last || err == nil {
			t.Fatalf("flip at %d: %d records, valid prefix %d, err %v", i, n, valid, err)
		}
	}
}
