package store

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/aplite/aplite/vector"
)

// blockPart is a Part over one encoded block, in a mapped file or on the
// heap (memory mode).
//
// Lifetime (FORMAT.md, "Memory mode and mmap lifetime"): refs counts the
// dataset's own reference, one per unreleased Snapshot holding the part and
// one per ReadColumn in progress. When it drops to zero, free runs (unmap);
// after that acquire fails and ReadColumn returns an error, so no code path
// touches unmapped memory. A part that becomes unreachable with references
// outstanding (a Snapshot never released) is unmapped by a GC cleanup.
type blockPart struct {
	id    uint64
	uid   uint64 // unique in the process: ids repeat across datasets
	file  string
	data  []byte // the whole block; nil when src reads it in ranges
	src   rangeSource
	size  int
	idx   *blockIndex
	meta  []ColumnMeta
	byKey map[ColKey]int
	refs  atomic.Int64
	free  func() // releases data; nil when the GC owns it
	// durable is false for a file-mode block still on the heap (its rows
	// are only in the WAL): compaction and trim leave those alone.
	durable bool
	mapped  *mapping // the file mapping; nil for heap blocks
}

// mapping unmaps a file exactly once, whoever asks first (the reference
// count or the GC cleanup, see mapBlock).
type mapping struct {
	once     sync.Once
	unmap    func() error
	released atomic.Bool
}

func (m *mapping) release() {
	m.once.Do(func() {
		_ = m.unmap()
		m.released.Store(true)
	})
}

// rangeSource reads byte ranges of a block that is not held in memory: a
// block on object storage, read through the node's caches.
type rangeSource interface {
	readRange(off, n int) ([]byte, error)
}

// partSeq numbers parts in the process, so caches keyed by Part.ID never
// confuse blocks of different datasets (both have a block 1) or of a
// dataset deleted and created again.
var partSeq atomic.Uint64

// newBlockPart parses data and returns a part holding one reference.
func newBlockPart(id uint64, file string, data []byte, free func()) (*blockPart, error) {
	idx, err := parseBlock(file, data)
	if err != nil {
		return nil, err
	}
	return indexedPart(id, file, idx, data, nil, len(data), free)
}

// indexedPart builds a part from a parsed index and either the whole
// block (data) or a source of its ranges (src).
func indexedPart(id uint64, file string, idx *blockIndex, data []byte, src rangeSource, size int, free func()) (*blockPart, error) {
	p := &blockPart{id: id, uid: partSeq.Add(1), file: file, data: data, src: src, size: size, idx: idx, free: free,
		byKey: make(map[ColKey]int, len(idx.cols))}
	for i, c := range idx.cols {
		if _, dup := p.byKey[c.key]; dup {
			return nil, &CorruptionError{File: file, Offset: int64(c.off), Reason: "column listed twice"}
		}
		p.byKey[c.key] = i
		m := ColumnMeta{Key: c.key, NullCount: c.nullCount, Min: c.min, Max: c.max, Dict: c.dict}
		m.Terms = c.filter
		p.meta = append(p.meta, m)
	}
	p.refs.Store(1)
	return p, nil
}

// acquire takes a reference unless the part is already released.
func (p *blockPart) acquire() bool {
	for {
		n := p.refs.Load()
		if n <= 0 {
			return false
		}
		if p.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// unref drops a reference, releasing the data with the last one.
func (p *blockPart) unref() {
	if p.refs.Add(-1) == 0 && p.free != nil {
		p.free()
	}
}

func (p *blockPart) ID() string                { return fmt.Sprintf("b%016x.%x", p.id, p.uid) }
func (p *blockPart) Rows() int                 { return p.idx.rows }
func (p *blockPart) TimeRange() (int64, int64) { return p.idx.minTime, p.idx.maxTime }
func (p *blockPart) Columns() []ColumnMeta     { return p.meta }
func (p *blockPart) Immutable() bool           { return true }

// Size is the encoded size of the block in bytes.
func (p *blockPart) Size() int { return p.size }

// ReadColumn decodes one column; every value is copied to the heap.
func (p *blockPart) ReadColumn(k ColKey) (*vector.Vector, error) {
	i, ok := p.byKey[k]
	if !ok {
		return nil, nil
	}
	if !p.acquire() {
		return nil, fmt.Errorf("store: block %s of %s read after release: %w", p.ID(), p.file, ErrClosed)
	}
	defer p.unref() // also keeps p reachable (and mapped) until we return
	c := p.idx.cols[i]
	blob, err := p.span(c, 0, c.size)
	if err != nil {
		return nil, err
	}
	if crc(blob) != c.crc {
		return nil, &CorruptionError{File: p.file, Offset: int64(c.off), Reason: fmt.Sprintf("column %q checksum mismatch", k.Name)}
	}
	defer p.dropSpan(blob)
	if c.pageRows > 0 {
		return p.decodePaged(c, blob)
	}
	return decodeColumn(p.file, int64(c.off), blob, k.Type, p.idx.rows)
}

// dropSpan takes a decoded span of a mapped block out of the resident set
// (dropPages): decoded vectors never point into the mapping, and a column
// read again comes from the column cache or is decoded anew. Spans of heap
// blocks and of object storage are left alone.
func (p *blockPart) dropSpan(b []byte) {
	if p.mapped != nil && p.data != nil {
		dropPages(b)
	}
}

// span returns n bytes of a column's blob from its byte off: a slice of
// the block in memory, or one ranged read of exactly those bytes from
// object storage (the whole column when a query needs all of it).
func (p *blockPart) span(c colEntry, off, n int) ([]byte, error) {
	if p.data != nil {
		b := p.data[c.off+off : c.off+off+n] // bounds checked by parseBlock
		if p.mapped != nil {
			readAhead(b)
		}
		return b, nil
	}
	b, err := p.src.readRange(c.off+off, n)
	if err != nil {
		return nil, fmt.Errorf("store: block %s, column %q: %w", p.file, c.key.Name, err)
	}
	if len(b) != n {
		return nil, &CorruptionError{File: p.file, Offset: int64(c.off + off), Reason: fmt.Sprintf("column %q: read %d bytes of %d", c.key.Name, len(b), n)}
	}
	return b, nil
}
