package store

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/aplite/aplite/vector"
)

var update = flag.Bool("update", false, "rewrite the committed fuzz seeds under testdata/fuzz")

// FuzzBlock feeds arbitrary bytes to the block parser and column decoder:
// they may reject the input, only ever with a *CorruptionError, and must
// not panic.
func FuzzBlock(f *testing.F) {
	f.Add(sampleBlock(f, 20))
	f.Add(samplePagedBlock(f, 150))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := newBlockPart(1, "fuzz", data, nil)
		if err != nil {
			var ce *CorruptionError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		if p.Rows() > 1<<16 { // a crafted index may claim many cheap rows
			return
		}
		for _, m := range p.Columns() {
			v, err := p.ReadColumn(m.Key)
			var ce *CorruptionError
			if err != nil && !errors.As(err, &ce) {
				t.Fatalf("error %T: %v", err, err)
			}
			if err == nil && v.Len != p.Rows() {
				t.Fatalf("column %v decoded %d rows of %d", m.Key, v.Len, p.Rows())
			}
			if pr := p.PageRows(m.Key); pr > 0 {
				last := (p.Rows() - 1) / pr
				pages, err := p.ReadPages(m.Key, 0, last)
				if err != nil && !errors.As(err, &ce) {
					t.Fatalf("pages: error %T: %v", err, err)
				}
				if err == nil && len(pages) != last+1 {
					t.Fatalf("column %v decoded %d pages of %d", m.Key, len(pages), last+1)
				}
			}
		}
	})
}

// FuzzColumn decodes arbitrary column blobs, below the CRC that guards
// them on disk, so the decoders themselves meet hostile input.
func FuzzColumn(f *testing.F) {
	for _, b := range columnSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		typ, rows := data[0]%8, int(data[1])|int(data[2])<<8
		v, err := decodeColumn("fuzz", 0, data[3:], vectorType(typ), rows)
		var ce *CorruptionError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("error %T: %v", err, err)
		}
		if err == nil && v.Len != rows {
			t.Fatalf("decoded %d rows of %d", v.Len, rows)
		}
	})
}

// columnSeeds encodes every column of a mixed batch as FuzzColumn input:
// type byte, 16-bit row count, blob.
func columnSeeds(t testing.TB) [][]byte {
	r := mixedRows(30, 1e18)
	var out [][]byte
	for i, k := range r.Keys {
		blob, _, err := encodeColumn(nil, k.Type, r.Cols[i], r.N)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, append([]byte{byte(k.Type), byte(r.N), byte(r.N >> 8)}, blob...))
	}
	return out
}

// FuzzWAL feeds arbitrary bytes to the WAL reader and the rows decoder:
// the valid prefix is reported, never a panic.
func FuzzWAL(f *testing.F) {
	seg, _ := sampleWAL(f, 3)
	f.Add(seg)
	f.Fuzz(func(t *testing.T, data []byte) {
		n, valid, err := scanAll(data)
		if valid > len(data) || (err == nil && valid != len(data)) || n < 0 {
			t.Fatalf("valid prefix %d of %d, err %v", valid, len(data), err)
		}
	})
}

// FuzzRows decodes arbitrary WAL payloads, below the record CRC.
func FuzzRows(f *testing.F) {
	for _, p := range rowsSeeds(f) {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := newReader("fuzz", 0, data)
		r := decodeRows(rd)
		if (r == nil) != (rd.err != nil) {
			t.Fatalf("rows %v with error %v", r, rd.err)
		}
		if r != nil {
			if err := checkRows(r); err != nil {
				t.Fatalf("decoded an invalid batch: %v", err)
			}
		}
	})
}

func rowsSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, n := range []int{0, 3, 17} {
		p, err := encodeRows(nil, mixedRows(n, 1e18))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// TestFuzzSeeds keeps the committed seed corpus in step with the format:
// with -update it rewrites it; otherwise it checks the seeds still decode.
func TestFuzzSeeds(t *testing.T) {
	seeds := map[string][][]byte{
		"FuzzBlock":  {sampleBlock(t, 3), sampleBlock(t, 40), samplePagedBlock(t, 150)},
		"FuzzColumn": columnSeeds(t),
		"FuzzRows":   rowsSeeds(t),
		"FuzzWAL":    {func() []byte { s, _ := sampleWAL(t, 1); return s }(), func() []byte { s, _ := sampleWAL(t, 4); return s }()},
	}
	for name, list := range seeds {
		for i, data := range list {
			path := filepath.Join("testdata", "fuzz", name, fmt.Sprintf("seed-%d", i))
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestFuzzSeeds -update)", err)
			}
			if string(got) != body {
				t.Errorf("%s is stale: the format changed; run go test -run TestFuzzSeeds -update", path)
			}
		}
	}
}

func vectorType(b byte) vector.Type { return vector.Type(b) }
