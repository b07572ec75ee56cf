package parquet

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/aplite/aplite/core/store"
)

// File is an open Parquet file: its footer, read when it was opened,
// and the leaf columns a caller asked for.
type File struct {
	pf      *pq.File
	leaves  []leaf
	skipped []string
}

// leaf is one leaf column the reader decodes.
type leaf struct {
	col  *pq.Column
	name string
	unit time.Duration // timestamps: the unit of the stored integer; 0 otherwise
	date bool          // DATE: days since the epoch
}

// Open reads the footer of the size bytes in r. keep, when not nil,
// says which fields to decode (_time always is); nil keeps them all.
//
// Only the footer is read: the leading magic bytes are not checked (the
// trailing ones are), and page indexes and bloom filters are skipped, as
// a row group is decoded whole. Each would be one more byte range a
// browser must fetch before the first row, for nothing.
func Open(r io.ReaderAt, size int64, keep func(string) bool) (*File, error) {
	pf, err := pq.OpenFile(r, size, pq.SkipMagicBytes(true), pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("not a Parquet file: %w", err)
	}
	f := &File{pf: pf}
	f.walk(pf.Root(), keep)
	return f, nil
}

// Skipped lists the repeated fields (lists and maps), which are not read.
func (f *File) Skipped() []string { return f.skipped }

// NumRowGroups returns the number of row groups.
func (f *File) NumRowGroups() int { return len(f.pf.RowGroups()) }

// NumRows returns the rows of row group i.
func (f *File) NumRows(i int) int64 { return f.pf.RowGroups()[i].NumRows() }

// walk lists the leaf columns to read, with dotted names.
func (f *File) walk(c *pq.Column, keep func(string) bool) {
	if !c.Leaf() {
		for _, ch := range c.Columns() {
			f.walk(ch, keep)
		}
		return
	}
	name := strings.Join(c.Path(), ".")
	if c.MaxRepetitionLevel() > 0 {
		f.skipped = append(f.skipped, name)
		return
	}
	if name == store.SysTimeField { // the loading store sets its own
		return
	}
	if keep != nil && name != store.TimeField && !keep(name) {
		return
	}
	l := leaf{col: c, name: name}
	if lt := c.Type().LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *format.TimestampType:
			if d, ok := v.Unit.Value.(interface{ Duration() time.Duration }); ok {
				l.unit = d.Duration()
			}
		case *format.DateType:
			l.date = true
		}
	}
	f.leaves = append(f.leaves, l)
}

// Span returns the byte range [off, end) of the file that holds the
// kept columns of row group i: what a reader of byte ranges must fetch
// before ReadRowGroup(i).
func (f *File) Span(i int) (off, end int64) {
	cols := f.pf.Metadata().RowGroups[i].Columns
	off = -1
	for _, l := range f.leaves {
		md := cols[l.col.Index()].MetaData
		start := md.DataPageOffset
		if md.DictionaryPageOffset != 0 {
			start = md.DictionaryPageOffset
		}
		if off < 0 || start < off {
			off = start
		}
		end = max(end, start+md.TotalCompressedSize)
	}
	return max(off, 0), end
}

// InWindow uses the _time column's statistics to tell whether row group
// i may hold events in [lo, hi); a zero bound is open.
func (f *File) InWindow(i int, lo, hi time.Time) bool {
	if lo.IsZero() && hi.IsZero() {
		return true
	}
	for _, l := range f.leaves {
		if l.name != store.TimeField || l.unit == 0 {
			continue
		}
		cols := f.pf.Metadata().RowGroups[i].Columns
		ci := l.col.Index()
		if ci < 0 || ci >= len(cols) {
			return true
		}
		st := cols[ci].MetaData.Statistics
		mn, mx := st.MinValue, st.MaxValue
		if len(mn) != 8 || len(mx) != 8 {
			return true
		}
		minT := int64(binary.LittleEndian.Uint64(mn)) * int64(l.unit)
		maxT := int64(binary.LittleEndian.Uint64(mx)) * int64(l.unit)
		if !lo.IsZero() && maxT < lo.UnixNano() || !hi.IsZero() && minT >= hi.UnixNano() {
			return false
		}
	}
	return true
}

// ReadRowGroup decodes the kept columns of row group i into rows; events
// without a _time take now (ns), as ingested events do.
func (f *File) ReadRowGroup(i int, now int64) (*store.Rows, error) {
	rg := f.pf.RowGroups()[i]
	n := int(rg.NumRows())
	chunks := rg.ColumnChunks()
	cols := make([][]pq.Value, len(f.leaves))
	for j, l := range f.leaves {
		vals, err := readChunk(chunks[l.col.Index()], n)
		if err != nil {
			return nil, fmt.Errorf("row group %d: column %s: %w", i, l.name, err)
		}
		cols[j] = vals
	}
	b := store.NewRowsBuilder()
	b.Reserve(n)
	refs := newRefs(len(f.leaves))
	for r := 0; r < n; r++ {
		b.Begin()
		for j, l := range f.leaves {
			refs.set(b, j, l, cols[j][r])
		}
		b.End(now)
	}
	return b.Finish(now), nil
}

// readChunk returns the n values of a column chunk, nulls included.
func readChunk(cc pq.ColumnChunk, n int) ([]pq.Value, error) {
	pages := cc.Pages()
	defer pages.Close()
	out := make([]pq.Value, 0, n)
	var buf []pq.Value
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		buf = buf[:0]
		buf = append(buf, make([]pq.Value, p.NumValues())...)
		k, err := p.Values().ReadValues(buf)
		if err != nil && err != io.EOF {
			pq.Release(p)
			return nil, err
		}
		for _, v := range buf[:k] {
			out = append(out, v.Clone()) // the page's memory goes back to its pool
		}
		pq.Release(p)
	}
	if len(out) != n {
		return nil, fmt.Errorf("%d values for %d rows", len(out), n)
	}
	return out, nil
}
