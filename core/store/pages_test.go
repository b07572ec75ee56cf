package store

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/vector"
)

// pagedRows are rows whose message column is free text large enough to
// be paged: a few nulls, one value too long for the index's min/max (in
// the first page, so the pages after it have bounds the whole column
// does not); a path column paged without nulls; and a short status
// column that stays one page.
func pagedRows(n int) *Rows {
	b := NewRowsBuilder()
	for i := 0; i < n; i++ {
		b.Begin()
		b.SetTime(int64(i) * 1e6)
		switch {
		case i%97 == 5:
			b.SetNull("message")
		case i == 10:
			b.SetString("message", strings.Repeat("long ", 80))
		default:
			b.SetString("message", fmt.Sprintf("GET /api/v1/items/%d served in %d ms by worker %x", i*7919%100003, i%977, i*31))
		}
		b.SetInt("status", int64(200+i%3*100))
		b.SetString("path", fmt.Sprintf("/users/%d/orders/%x", i*7919%100003, i*i)) // paged, no nulls
		b.End(0)
	}
	return b.Finish(1)
}

// blockOf encodes rows as one block of the given format version.
func blockOf(t testing.TB, r *Rows, version int) []byte {
	t.Helper()
	cs, err := mergeParts([]Part{NewRowsPart("m", r)}, math.MinInt64)
	if err != nil {
		t.Fatal(err)
	}
	data, err := encodeBlock(cs, blockMeta{walSeqMax: 1, version: version})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var msgKey = ColKey{Name: "message", Type: vector.String}

// A large free-text column is written in pages of a granule; the whole
// column and any run of its pages decode to the rows written, and the
// index describes it as the previous format did.
func TestPagedColumnRoundTrip(t *testing.T) {
	const n = 5*pageRows + 100
	rows := pagedRows(n)
	p, err := newBlockPart(1, "v4", blockOf(t, rows, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.PageRows(msgKey); got != pageRows {
		t.Fatalf("message page rows %d, want %d", got, pageRows)
	}
	if got := p.PageRows(ColKey{Name: "path", Type: vector.String}); got != pageRows {
		t.Fatalf("path page rows %d, want %d", got, pageRows)
	}
	if got := p.PageRows(ColKey{Name: "status", Type: vector.Int}); got != 0 {
		t.Fatalf("small column paged by %d rows", got)
	}
	sameEvents(t, eventsOf(t, p), eventsOfRows(rows))
	whole, err := p.ReadColumn(msgKey)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := p.ReadPages(msgKey, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	for j, pv := range pages {
		lo := (2 + j) * pageRows
		if want := min(pageRows, n-lo); pv.Len != want {
			t.Fatalf("page %d holds %d rows, want %d", 2+j, pv.Len, want)
		}
		for i := 0; i < pv.Len; i++ {
			if pv.IsNull(i) != whole.IsNull(lo+i) || pv.Str(i) != whole.Str(lo+i) {
				t.Fatalf("page %d row %d = %q, whole column row %d = %q", 2+j, i, pv.Str(i), lo+i, whole.Str(lo+i))
			}
		}
	}
	old, err := newBlockPart(1, "v3", blockOf(t, rows, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range p.Columns() {
		o := old.Columns()[i]
		if m.Key != o.Key || m.NullCount != o.NullCount || m.Min != o.Min || m.Max != o.Max {
			t.Errorf("column %v: meta %+v, version 3 writes %+v", m.Key, m, o)
		}
	}
}

// Blocks of the previous writer (version 3, one blob per column) still
// read, the committed fixture and a fresh one alike.
func TestReadsBlockVersion3(t *testing.T) {
	raw, err := os.ReadFile("testdata/fuzz/FuzzBlock/seed-v3-compat")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.SplitN(string(raw), "\n", 3)[1]
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	if s[6] != 3 {
		t.Fatalf("fixture is version %d, want 3", s[6])
	}
	p, err := newBlockPart(1, "v3", []byte(s), nil)
	if err != nil {
		t.Fatal(err)
	}
	sameEvents(t, eventsOf(t, p), eventsOfRows(mixedRows(40, 1e18)))

	rows := pagedRows(3*pageRows + 7)
	data := blockOf(t, rows, 3)
	if data[6] != 3 {
		t.Fatalf("wrote version %d, want 3", data[6])
	}
	q, err := newBlockPart(1, "v3", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.PageRows(msgKey) != 0 {
		t.Fatal("a version 3 block has pages")
	}
	sameEvents(t, eventsOf(t, q), eventsOfRows(rows))
}

// countingSource serves a block's ranges from memory and records them,
// as object storage would be asked.
type countingSource struct {
	data  []byte
	reads [][2]int
}

func (s *countingSource) readRange(off, n int) ([]byte, error) {
	s.reads = append(s.reads, [2]int{off, n})
	return s.data[off : off+n], nil
}

// On object storage a run of pages is one ranged read of exactly their
// bytes; the whole column stays one read of the column.
func TestPagesReadInRanges(t *testing.T) {
	data := blockOf(t, pagedRows(6*pageRows), 0)
	idx, err := parseBlock("blk", data)
	if err != nil {
		t.Fatal(err)
	}
	src := &countingSource{data: data}
	p, err := indexedPart(1, "blk", idx, nil, src, len(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := idx.cols[p.byKey[msgKey]]
	if _, err := p.ReadPages(msgKey, 1, 3); err != nil {
		t.Fatal(err)
	}
	want := [2]int{c.off + c.pages[1].off, c.pages[1].size + c.pages[2].size + c.pages[3].size}
	if len(src.reads) != 1 || src.reads[0] != want {
		t.Fatalf("reads %v, want one read %v", src.reads, want)
	}
	src.reads = nil
	if _, err := p.ReadColumn(msgKey); err != nil {
		t.Fatal(err)
	}
	if len(src.reads) != 1 || src.reads[0] != [2]int{c.off, c.size} {
		t.Fatalf("whole column reads %v, want one read of %d bytes at %d", src.reads, c.size, c.off)
	}
}

// Damage in a page is reported at that page's offset, and the other
// pages still read; damage in a page table is a *CorruptionError when the
// block opens.
func TestPageCorruption(t *testing.T) {
	data := blockOf(t, pagedRows(4*pageRows), 0)
	idx, err := parseBlock("blk", data)
	if err != nil {
		t.Fatal(err)
	}
	var c colEntry
	for _, x := range idx.cols {
		if x.key == msgKey {
			c = x
		}
	}
	bad := append([]byte(nil), data...)
	at := c.off + c.pages[2].off + c.pages[2].size/2
	bad[at] ^= 0x40
	p, err := newBlockPart(1, "blk", bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ce *CorruptionError
	_, err = p.ReadPages(msgKey, 1, 2)
	if !errors.As(err, &ce) || ce.Offset != int64(c.off+c.pages[2].off) || ce.File != "blk" {
		t.Fatalf("damaged page: %v, want a *CorruptionError at %d", err, c.off+c.pages[2].off)
	}
	if _, err := p.ReadPages(msgKey, 3, 3); err != nil {
		t.Fatalf("intact page: %v", err)
	}
	if _, err := p.ReadColumn(msgKey); !errors.As(err, &ce) {
		t.Fatalf("whole column over a damaged page: %v", err)
	}

	mutations := map[string]func(c *colEntry){
		"page longer than the column": func(c *colEntry) { c.pages[0].size += c.size },
		"pages short of the column":   func(c *colEntry) { c.pages[1].size-- },
		"page rows off 64":            func(c *colEntry) { c.pageRows = 100 },
		"page rows above the block":   func(c *colEntry) { c.pageRows = 1 << 20; c.pages = c.pages[:1] },
		"empty page":                  func(c *colEntry) { c.pages[3].size = 0 },
	}
	for name, mutate := range mutations {
		_, err := newBlockPart(1, "blk", withIndex(t, data, func(x *blockIndex) {
			for i := range x.cols {
				if x.cols[i].key == msgKey {
					mutate(&x.cols[i])
				}
			}
		}), nil)
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a *CorruptionError", name, err)
		}
	}
}

// withIndex rewrites a block's index through edit, with a valid CRC, so
// the damage reaches the page table checks behind it.
func withIndex(t *testing.T, data []byte, edit func(*blockIndex)) []byte {
	t.Helper()
	idx, err := parseBlock("blk", data)
	if err != nil {
		t.Fatal(err)
	}
	edit(idx)
	ioff := int(uint64(data[len(data)-trailerLen]) | uint64(data[len(data)-trailerLen+1])<<8 | uint64(data[len(data)-trailerLen+2])<<16 | uint64(data[len(data)-trailerLen+3])<<24)
	index := putIndex(nil, idx, blockVersion)
	out := append([]byte(nil), data[:ioff]...)
	out = append(out, index...)
	out = putU64(out, uint64(ioff))
	out = putU32(out, uint32(len(index)))
	out = putU32(out, crc(index))
	return append(out, trailerMagic...)
}

// BenchmarkColumnPages encodes the realistic free-text message of the
// benchmarks' generator (256Ki events) whole and in pages of 1, 2 and 8
// granules, and decodes it: B/row is the size on disk, page-ns is the
// decode of one page (what a rare word in one granule costs), whole-ns
// the decode of the whole column from its pages.
func BenchmarkColumnPages(b *testing.B) {
	const n = 256 << 10
	g := gen.NewWith(7, gen.Options{Shape: gen.Real, EventsPerDay: n})
	v := vector.New(vector.String, n)
	raw := 0
	for i := 0; i < n; i++ {
		s, _ := g.Event()["message"].(string)
		v.AppendStr(s)
		raw += len(s)
	}
	for _, rows := range []int{pageRows, 2 * pageRows, 8 * pageRows, n} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			blob, _, pages, err := encodePages(vector.String, v, n, rows, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(raw))
			b.ReportAllocs()
			var page, whole time.Duration
			for b.Loop() {
				began := time.Now()
				one := pages[len(pages)/2]
				if _, err := decodeColumn("b", 0, blob[one.off:one.off+one.size], vector.String, rows); err != nil {
					b.Fatal(err)
				}
				page += time.Since(began)
				began = time.Now()
				for _, p := range pages {
					if _, err := decodeColumn("b", 0, blob[p.off:p.off+p.size], vector.String, rows); err != nil {
						b.Fatal(err)
					}
				}
				whole += time.Since(began)
			}
			b.ReportMetric(float64(len(blob))/n, "B/row")
			b.ReportMetric(float64(page.Nanoseconds())/float64(b.N), "page-ns")
			b.ReportMetric(float64(whole.Nanoseconds())/float64(b.N), "whole-ns")
			b.ReportMetric(float64(n)*float64(b.N)/(page+whole).Seconds(), "rows/s")
		})
	}
}
