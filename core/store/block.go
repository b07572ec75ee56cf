package store

import (
	"fmt"
	"hash/crc32"
	"math"

	"github.com/aplite/aplite/vector"
)

// Block file framing (FORMAT.md, "Block file").
const (
	blockMagic    = "APLBLK"
	blockVersion  = 4 // 2 adds term filters, 3 one per granule, 4 column pages; 1 to 3 are still read
	trailerMagic  = "APLB"
	headerLen     = 8
	trailerLen    = 20
	maxBlockIndex = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// blockMeta is what a block records besides its columns.
type blockMeta struct {
	walSeqMax  uint64   // highest WAL seq whose rows the block holds
	created    int64    // ns
	inputBytes int64    // uncompressed size estimate of the rows (Info)
	replaced   []uint64 // blocks this one supersedes
	// terms asks for term filters on string columns (not stored: the
	// filters themselves are). Compaction builds them; the seal on the
	// ingest path does not, to keep ingest's CPU.
	terms bool
	// version is the format to write: 0 for blockVersion. Tests write 3
	// to check that blocks of the previous writer still read.
	version int
	// smallPages, for tests, pages every string column of more than
	// smallPages rows by smallPages, so a block small enough for a fuzz
	// seed has pages; 0 is the writer's rule (pagedColumn).
	smallPages int
}

// colEntry is one column of the block index.
type colEntry struct {
	key       ColKey
	enc       byte
	off, size int
	crc       uint32
	nullCount int
	min, max  any
	dict      []string
	terms     []byte      // the terms field as stored (FORMAT.md); nil: none
	termsAt   int64       // where terms lies in the block file
	filter    *TermFilter // terms, parsed
	// pageRows is the rows per page of a paged column (version 4), 0
	// when the blob is one page; pages tile the blob.
	pageRows int
	pages    []pageRef
}

// blockIndex is a parsed block index.
type blockIndex struct {
	blockMeta
	rows             int
	minTime, maxTime int64
	cols             []colEntry
}

// colSet is a block's content before encoding: n rows, columns in order,
// _time and _sysTime included. col builds column i on demand, so the
// encoder holds one decoded column at a time, not the whole block.
type colSet struct {
	n    int
	keys []ColKey
	col  func(i int) (*vector.Vector, error)
	// done, when set, takes back a column once it is encoded.
	done func(*vector.Vector)
	// pause, when set, is called between the steps of the encoding (a
	// column, a page, a granule's filter) so compaction can step aside
	// for queries (querygate.go); the ingest path's seal leaves it nil.
	pause func()
}

// step calls cs.pause, if any.
func (cs *colSet) step() {
	if cs.pause != nil {
		cs.pause()
	}
}

// encodeBlock lays out a block file in memory. The column blobs are
// encoded first and copied once into a buffer of the exact size: the
// block may stay on the heap until a flush, so slack capacity would be
// memory held per buffered event.
func encodeBlock(cs *colSet, meta blockMeta) ([]byte, error) {
	idx := blockIndex{blockMeta: meta, rows: cs.n}
	version := meta.version
	if version == 0 {
		version = blockVersion
	}
	blobs := make([][]byte, len(cs.keys))
	off := headerLen
	for i, k := range cs.keys {
		cs.step()
		v, err := cs.col(i)
		if err != nil {
			return nil, err
		}
		var blob []byte
		var st colStats
		var pages []pageRef
		rows := pageRows
		paged := version >= 4 && pagedColumn(k.Type, v, cs.n)
		if meta.smallPages > 0 {
			rows, paged = meta.smallPages, version >= 4 && k.Type == vector.String && cs.n > meta.smallPages
		}
		if paged {
			blob, st, pages, err = encodePages(k.Type, v, cs.n, rows, cs.pause)
		} else {
			blob, st, err = encodeColumn(nil, k.Type, v, cs.n)
		}
		if err != nil {
			return nil, fmt.Errorf("store: column %q: %w", k.Name, err)
		}
		var terms []byte
		if meta.terms && k.Type == vector.String {
			terms = buildTermFilter(v, cs.n, cs.pause)
		}
		if cs.done != nil && v != nil {
			cs.done(v)
		}
		blobs[i] = blob
		ce := colEntry{key: k, enc: st.enc, off: off, size: len(blob), crc: crc(blob),
			nullCount: st.nullCount, min: st.min, max: st.max, dict: st.dict, terms: terms}
		if pages != nil {
			ce.pageRows, ce.pages = rows, pages
		}
		idx.cols = append(idx.cols, ce)
		if k.Name == TimeField && k.Type == vector.DateTime && st.min != nil {
			idx.minTime, idx.maxTime = st.min.(int64), st.max.(int64)
		}
		off += len(blob)
	}
	index := putIndex(nil, &idx, version)
	out := make([]byte, 0, off+len(index)+trailerLen)
	out = append(out, blockMagic...)
	out = append(out, byte(version), 0)
	for _, b := range blobs {
		out = append(out, b...)
	}
	ioff := len(out)
	out = append(out, index...)
	out = putU64(out, uint64(ioff))
	out = putU32(out, uint32(len(index)))
	out = putU32(out, crc(index))
	return append(out, trailerMagic...), nil
}

func putIndex(b []byte, x *blockIndex, version int) []byte {
	b = putUvarint(b, uint64(x.rows))
	b = putVarint(b, x.minTime)
	b = putVarint(b, x.maxTime)
	b = putUvarint(b, x.walSeqMax)
	b = putVarint(b, x.created)
	b = putVarint(b, x.inputBytes)
	b = putUvarint(b, uint64(len(x.replaced)))
	for _, id := range x.replaced {
		b = putUvarint(b, id)
	}
	b = putUvarint(b, uint64(len(x.cols)))
	for _, c := range x.cols {
		b = putBytes(b, c.key.Name)
		b = append(b, byte(c.key.Type), c.enc)
		b = putUvarint(b, uint64(c.off))
		b = putUvarint(b, uint64(c.size))
		b = putU32(b, c.crc)
		b = putUvarint(b, uint64(c.nullCount))
		if c.min == nil {
			b = append(b, 0)
		} else {
			b = append(b, 1)
			b = putStat(b, c.min)
			b = putStat(b, c.max)
		}
		b = putUvarint(b, uint64(len(c.dict)))
		for _, s := range c.dict {
			b = putBytes(b, s)
		}
		b = putTermFilter(b, c.terms)
		if version >= 4 {
			b = putPageTable(b, &c)
		}
	}
	return b
}

func putStat(b []byte, x any) []byte {
	switch v := x.(type) {
	case int64:
		return putVarint(b, v)
	case float64:
		return putF64(b, v)
	case bool:
		if v {
			return append(b, 1)
		}
		return append(b, 0)
	case string:
		return putBytes(b, v)
	}
	panic(fmt.Sprintf("store: BUG: stat of type %T", x))
}

func (r *reader) stat(t vector.Type) any {
	switch t {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		return r.varint()
	case vector.Float:
		return r.f64()
	case vector.Bool:
		return r.u8() != 0
	case vector.String:
		return r.str()
	}
	r.fail("min/max on a column type without stats")
	return nil
}

// parseBlock checks a block file's framing and parses its index. It does
// not read the column blobs (their CRCs are checked on ReadColumn).
func parseBlock(file string, data []byte) (*blockIndex, error) {
	bad := func(off int64, reason string) error {
		return &CorruptionError{File: file, Offset: off, Reason: reason}
	}
	if len(data) < headerLen+trailerLen {
		return nil, bad(0, "file too short for a block")
	}
	if string(data[:6]) != blockMagic {
		return nil, bad(0, "bad block magic")
	}
	version := int(data[6]) | int(data[7])<<8
	if version < 1 || version > blockVersion {
		return nil, bad(6, fmt.Sprintf("unsupported block version %d", version))
	}
	tr := newReader(file, int64(len(data)-trailerLen), data[len(data)-trailerLen:])
	ioff, ilen, icrc := tr.u64(), uint64(tr.u32()), tr.u32()
	if string(tr.take(4)) != trailerMagic {
		return nil, bad(int64(len(data)-4), "bad trailer magic")
	}
	end := uint64(len(data) - trailerLen)
	if ioff < headerLen || ioff > end || ilen > end-ioff || ilen > maxBlockIndex {
		return nil, bad(int64(len(data)-trailerLen), "index offset or length out of range")
	}
	ib := data[ioff : ioff+ilen]
	if crc(ib) != icrc {
		return nil, bad(int64(ioff), "index checksum mismatch")
	}
	return parseIndex(file, ib, int64(ioff), version)
}

// parseIndex parses index bytes found at offset off of a block of the
// given version (a file's, or the copy a catalog keeps), all of them.
func parseIndex(file string, ib []byte, off int64, version int) (*blockIndex, error) {
	r := newReader(file, off, ib)
	x := readIndex(r, int(off), version)
	if r.err != nil {
		return nil, r.err
	}
	if r.remaining() != 0 {
		r.fail("trailing bytes after index")
		return nil, r.err
	}
	return x, nil
}

// readIndex parses the index of a block of the given format version;
// column ranges must lie in [header, limit).
func readIndex(r *reader, limit, version int) *blockIndex {
	x := &blockIndex{}
	x.rows = r.count(0, "row")
	x.minTime, x.maxTime = r.varint(), r.varint()
	x.walSeqMax = r.uvarint()
	x.created = r.varint()
	x.inputBytes = r.varint()
	nrep := r.count(1, "replaced block")
	for i := 0; i < nrep; i++ {
		x.replaced = append(x.replaced, r.uvarint())
	}
	ncols := r.count(8, "column")
	x.cols = make([]colEntry, 0, ncols)
	for i := 0; i < ncols && r.err == nil; i++ {
		x.cols = append(x.cols, readColEntry(r, limit, x.rows, version))
	}
	return x
}

func readColEntry(r *reader, limit, rows, version int) colEntry {
	var c colEntry
	c.key.Name = r.str()
	c.key.Type = vector.Type(r.u8())
	c.enc = r.u8()
	off, size := r.uvarint(), r.uvarint()
	c.crc = r.u32()
	nc := r.uvarint()
	if c.key.Type > vector.Dynamic {
		r.fail("unknown column type")
	}
	if off < headerLen || off > uint64(limit) || size > uint64(limit)-off || size == 0 {
		r.fail("column range out of bounds")
	}
	if nc > uint64(rows) {
		r.fail("null count above row count")
	}
	c.off, c.size, c.nullCount = int(off), int(size), int(nc)
	if r.u8() == 1 {
		c.min, c.max = r.stat(c.key.Type), r.stat(c.key.Type)
		if f, ok := c.min.(float64); ok && (math.IsNaN(f) || math.IsNaN(c.max.(float64))) {
			r.fail("NaN min/max")
		}
	}
	nd := r.count(1, "dictionary")
	for i := 0; i < nd && r.err == nil; i++ {
		c.dict = append(c.dict, r.str())
	}
	if version >= 2 {
		nt := r.count(1, "term filter byte")
		if nt > maxTermsField || (version == 2 && nt > maxTermFilter) {
			r.fail("term filter too large")
		}
		at := r.base + int64(r.pos)
		if t := r.take(nt); nt > 0 && t != nil {
			if c.key.Type != vector.String {
				r.fail("term filter on a column that is not a string")
			}
			f, err := parseTermFilter(t, version, rows)
			if err != nil {
				r.fail(err.Error())
			}
			c.terms, c.termsAt, c.filter = t, at, f
		}
	}
	if version >= 4 {
		readPageTable(r, &c, rows)
	}
	return c
}
