package store

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

// Column pages (FORMAT.md, block version 4): a large column blob is cut
// into pages of rows, each one an independent column blob with its own
// CRC, so a query that needs a few granules of a block (a rare word, a
// narrow time window, the winners of a top) decodes those pages and not
// the whole column.

const (
	// pageRows is the rows of a page the writer cuts: one term-filter
	// granule, the unit the scan narrows to. A word in one event of
	// 100,000 lands in about one granule in twelve; with pages of 8
	// granules most pages would hold a hit and little decode would be
	// saved. Smaller pages than a granule save nothing more, as the scan
	// cannot narrow below one. BenchmarkColumnPages measures what a page
	// costs in bytes and decode against a whole column.
	pageRows = termGranule
	// pageMinBytes is the raw string bytes from which a column is paged.
	// Below it the column decodes in well under a millisecond, and one
	// page keeps whole-column reads free of the join.
	pageMinBytes = 256 << 10
)

// pageRef locates one page inside its column blob.
type pageRef struct {
	off, size int // relative to the blob
	crc       uint32
}

// pagedColumn tells whether the writer cuts column v (n rows of type t)
// into pages: a large string column of mostly distinct values (free text,
// ids). A column of repeated values is dictionary coded: it decodes fast
// and a page would repeat the dictionary.
func pagedColumn(t vector.Type, v *vector.Vector, n int) bool {
	if t != vector.String || v == nil || v.Type != vector.String || v.Const || v.Codes != nil || n <= pageRows {
		return false
	}
	size := 0
	for _, s := range v.Strs[:n] {
		size += len(s)
	}
	return size >= pageMinBytes && !mostlyRepeated(v.Strs[:n])
}

// encodePages encodes v (n rows) as a run of pages of rows rows (the
// writer's pageRows) and returns the blob, the page table and the stats
// of the whole column. pause, if set, is called before each page.
func encodePages(t vector.Type, v *vector.Vector, n, rows int, pause func()) ([]byte, colStats, []pageRef, error) {
	// Each page is encoded on its own and the pages are copied once into
	// a blob of the exact size: appending them to one growing buffer
	// copied a large column several times over.
	var st colStats
	var pages []pageRef
	var bodies [][]byte
	size := 0
	unknown, seen := false, false
	for lo := 0; lo < n; lo += rows {
		if pause != nil && lo > 0 {
			pause()
		}
		hi := min(lo+rows, n)
		body, ps, err := encodeColumn(nil, t, v.Slice(lo, hi), hi-lo)
		if err != nil {
			return nil, st, nil, err
		}
		bodies = append(bodies, body)
		pages = append(pages, pageRef{off: size, size: len(body), crc: crc(body)})
		size += len(body)
		st.nullCount += ps.nullCount
		if ps.nullCount == hi-lo {
			continue // all null: no value to bound
		}
		if !seen {
			st.enc = ps.enc
		}
		switch {
		case unknown:
		case ps.min == nil: // a value too long for the index
			unknown = true
		case !seen:
			st.min, st.max = ps.min, ps.max
		default:
			st.min, st.max = min(st.min.(string), ps.min.(string)), max(st.max.(string), ps.max.(string))
		}
		seen = true
	}
	if unknown {
		st.min, st.max = nil, nil
	}
	blob := make([]byte, 0, size)
	for _, body := range bodies {
		blob = append(blob, body...)
	}
	return blob, st, pages, nil
}

// putPageTable appends a version 4 column entry's page table.
func putPageTable(b []byte, c *colEntry) []byte {
	b = putUvarint(b, uint64(c.pageRows))
	for _, p := range c.pages {
		b = putUvarint(b, uint64(p.size))
		b = putU32(b, p.crc)
	}
	return b
}

// readPageTable reads the page table of a version 4 column entry of a
// block of rows rows. The pages must tile the blob exactly.
func readPageTable(r *reader, c *colEntry, rows int) {
	pr := r.count(0, "page rows")
	if r.err != nil || pr == 0 {
		return
	}
	if pr%64 != 0 {
		r.fail("page rows not a multiple of 64")
		return
	}
	np := (rows + pr - 1) / pr
	if np > r.remaining()/5 { // a page entry is at least 5 bytes
		r.fail("page count out of range")
		return
	}
	c.pageRows = pr
	c.pages = make([]pageRef, 0, np)
	off := 0
	for i := 0; i < np && r.err == nil; i++ {
		size := r.uvarint()
		pc := r.u32()
		if size == 0 || size > uint64(c.size-off) {
			r.fail("page length out of range")
			return
		}
		c.pages = append(c.pages, pageRef{off: off, size: int(size), crc: pc})
		off += int(size)
	}
	if r.err == nil && off != c.size {
		r.fail("pages do not fill the column")
	}
}

// pageSpan is the rows [lo, hi) of page i of a column entry.
func (c *colEntry) pageSpan(i, rows int) (int, int) {
	return i * c.pageRows, min((i+1)*c.pageRows, rows)
}

// PageRows is how many rows each page of column k holds (the last may
// hold fewer); 0 when the column is stored as one page or is absent.
func (p *blockPart) PageRows(k ColKey) int {
	if i, ok := p.byKey[k]; ok {
		return p.idx.cols[i].pageRows
	}
	return 0
}

// ReadPages decodes pages [first, last] of column k, one vector per page.
// Only those pages' bytes are read: on object storage, one ranged read
// for the run.
func (p *blockPart) ReadPages(k ColKey, first, last int) ([]*vector.Vector, error) {
	i, ok := p.byKey[k]
	if !ok {
		return nil, fmt.Errorf("store: block %s has no column %q", p.file, k.Name)
	}
	c := p.idx.cols[i]
	if c.pageRows == 0 || first < 0 || last < first || last >= len(c.pages) {
		return nil, fmt.Errorf("store: block %s, column %q: no pages %d..%d", p.file, k.Name, first, last)
	}
	if !p.acquire() {
		return nil, fmt.Errorf("store: block %s of %s read after release: %w", p.ID(), p.file, ErrClosed)
	}
	defer p.unref()
	lo, end := c.pages[first].off, c.pages[last].off+c.pages[last].size
	run, err := p.span(c, lo, end-lo)
	if err != nil {
		return nil, err
	}
	defer p.dropSpan(run)
	out := make([]*vector.Vector, 0, last-first+1)
	for j := first; j <= last; j++ {
		pg := c.pages[j]
		b := run[pg.off-lo : pg.off-lo+pg.size]
		at := int64(c.off + pg.off)
		if crc(b) != pg.crc {
			return nil, &CorruptionError{File: p.file, Offset: at, Reason: fmt.Sprintf("column %q page %d checksum mismatch", k.Name, j)}
		}
		rlo, rhi := c.pageSpan(j, p.idx.rows)
		v, err := decodeColumn(p.file, at, b, k.Type, rhi-rlo)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// decodePaged decodes a whole paged column from its blob (whose CRC the
// caller checked) and joins the pages.
//
// Plain string pages without nulls, free text's usual case, decode
// straight into the column's one slice of strings; only pages with nulls
// or a dictionary are copied into it.
func (p *blockPart) decodePaged(c colEntry, blob []byte) (*vector.Vector, error) {
	var all []string
	if c.key.Type == vector.String {
		all = make([]string, p.idx.rows)
	}
	pages := make([]*vector.Vector, len(c.pages))
	inPlace := all != nil
	for j, pg := range c.pages {
		rlo, rhi := c.pageSpan(j, p.idx.rows)
		var into []string
		if all != nil {
			into = all[rlo:rhi:rhi]
		}
		v, err := decodeColumnInto(p.file, int64(c.off+pg.off), blob[pg.off:pg.off+pg.size], c.key.Type, rhi-rlo, into)
		if err != nil {
			return nil, err
		}
		pages[j] = v
		inPlace = inPlace && v.Valid == nil && v.Codes == nil && rhi > rlo && &v.Strs[0] == &all[rlo]
	}
	if inPlace {
		return &vector.Vector{Type: vector.String, Len: p.idx.rows, Strs: all}, nil
	}
	return JoinPages(c.key.Type, pages), nil
}

// JoinPages concatenates the vectors of consecutive runs of rows into one
// vector of type t. Every piece but the last must hold a multiple of 64
// rows, so validity bitmaps join word by word (pages and morsels are cut
// that way). Dictionary-coded pieces are joined as plain strings: each
// page has its own dictionary.
func JoinPages(t vector.Type, pieces []*vector.Vector) *vector.Vector {
	if len(pieces) == 1 {
		return pieces[0]
	}
	n := 0
	nulls := false
	for _, v := range pieces {
		n += v.Len
		nulls = nulls || v.Valid != nil
	}
	out := &vector.Vector{Type: t, Len: n}
	if t == vector.Null {
		return out
	}
	if nulls {
		out.Valid = vector.NewBitmap(n)
	}
	at := 0
	for _, v := range pieces {
		v = v.Materialize()
		if nulls {
			joinValid(out.Valid, v, at)
		}
		switch t {
		case vector.Bool:
			out.Bools = append(out.Bools, v.Bools[:v.Len]...)
		case vector.Int, vector.DateTime, vector.TimeSpan:
			out.Ints = append(out.Ints, v.Ints[:v.Len]...)
		case vector.Float:
			out.Floats = append(out.Floats, v.Floats[:v.Len]...)
		case vector.String:
			out.Strs = appendStrs(out.Strs, v, n)
		case vector.Dynamic:
			out.Dyns = append(out.Dyns, v.Dyns[:v.Len]...)
		}
		at += v.Len
	}
	return out
}

// appendStrs appends v's strings to dst (sized for n in all), looking
// dictionary codes up.
func appendStrs(dst []string, v *vector.Vector, n int) []string {
	if dst == nil {
		dst = make([]string, 0, n)
	}
	if v.Codes == nil {
		return append(dst, v.Strs[:v.Len]...)
	}
	for _, c := range v.Codes[:v.Len] {
		dst = append(dst, v.Dict[c])
	}
	return dst
}

// joinValid sets the validity bits of v's rows at row at of dst (at is a
// multiple of 64).
func joinValid(dst vector.Bitmap, v *vector.Vector, at int) {
	w := at / 64
	if v.Valid == nil {
		for i := 0; i < v.Len; i++ {
			dst.Set(at + i)
		}
		return
	}
	nw := (v.Len + 63) / 64
	for j := 0; j < nw; j++ {
		x := v.Valid[j]
		if r := v.Len - j*64; r < 64 {
			x &= 1<<uint(r) - 1
		}
		dst[w+j] = x
	}
}
