package parquet

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/aplite/aplite/core/store"
)

// File is an open Parquet file: its footer, read when it was opened,
// and the leaf columns a caller asked for.
type File struct {
	r       io.ReaderAt
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
	var f *File
	err := contain("footer", func() error {
		pf, err := pq.OpenFile(r, size, pq.SkipMagicBytes(true), pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
		if err != nil {
			return fmt.Errorf("not a Parquet file: %w", err)
		}
		f = &File{r: r, pf: pf}
		f.walk(pf.Root(), keep)
		for i, rg := range pf.RowGroups() {
			if n := rg.NumRows(); n < 0 || n > maxRowGroupRows {
				return fmt.Errorf("%w: row group %d claims %d rows", ErrDamaged, i, n)
			}
		}
		for _, l := range f.leaves {
			l.vectorType() // panics on a leaf whose type parquet-go cannot name
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Select returns f reading only the fields keep keeps (and _time), with
// the footer f already read.
func (f *File) Select(keep func(string) bool) *File {
	out := &File{r: f.r, pf: f.pf, skipped: f.skipped}
	for _, l := range f.leaves {
		if l.name == store.TimeField || keep(l.name) {
			out.leaves = append(out.leaves, l)
		}
	}
	return out
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

// ChunkRanges returns the byte ranges [off, end) of the file that hold
// the kept columns of row group i, in file order, adjacent chunks merged:
// what a reader of byte ranges must fetch before ReadRowGroup(i), and no
// more, so a query over two of thirty columns reads two chunks.
func (f *File) ChunkRanges(i int) [][2]int64 {
	cols := f.pf.Metadata().RowGroups[i].Columns
	size := f.pf.Size()
	var out [][2]int64
	for _, l := range f.leaves {
		md := cols[l.col.Index()].MetaData
		start := md.DataPageOffset
		if md.DictionaryPageOffset != 0 {
			start = md.DictionaryPageOffset
		}
		// A damaged footer may point past the file: clamp, and let the
		// decode of the row group report it.
		start = min(max(start, 0), size)
		out = append(out, [2]int64{start, min(start+max(md.TotalCompressedSize, 0), size)})
	}
	slices.SortFunc(out, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// Fields lists the kept columns other than _time with the type each is
// read as, so a caller can show a file's fields before reading them.
func (f *File) Fields() []store.ColKey {
	var out []store.ColKey
	for _, l := range f.leaves {
		if l.name != store.TimeField {
			out = append(out, store.ColKey{Name: l.name, Type: l.vectorType()})
		}
	}
	return out
}

// InWindow uses the _time column's statistics to tell whether row group
// i may hold events in [lo, hi); a zero bound is open.
func (f *File) InWindow(i int, lo, hi time.Time) bool {
	if lo.IsZero() && hi.IsZero() {
		return true
	}
	minT, maxT, _ := f.RowGroupStats(i)
	return (lo.IsZero() || maxT >= lo.UnixNano()) && (hi.IsZero() || minT < hi.UnixNano())
}

// ReadRowGroup decodes the kept columns of row group i into rows; events
// without a _time take now (ns), as ingested events do. A column that is
// null throughout the row group is left out, as an ingested batch has no
// column for a field none of its events set.
func (f *File) ReadRowGroup(i int, now int64) (rows *store.Rows, err error) {
	err = contain(fmt.Sprintf("row group %d", i), func() error {
		rows, err = f.readRowGroup(i, now)
		return err
	})
	return rows, err
}

func (f *File) readRowGroup(i int, now int64) (*store.Rows, error) {
	rg := f.pf.RowGroups()[i]
	n := int(rg.NumRows())
	chunks := rg.ColumnChunks()
	rows := &store.Rows{N: n, Time: make([]int64, n), SysTime: now}
	for r := range rows.Time {
		rows.Time[r] = now
	}
	var buf []pq.Value
	meta := f.pf.Metadata().RowGroups[i].Columns
	for _, l := range f.leaves {
		md := meta[l.col.Index()].MetaData
		start := md.DataPageOffset
		if md.DictionaryPageOffset != 0 {
			start = md.DictionaryPageOffset
		}
		values := min(max(md.NumValues, 0), int64(n))
		if err := checkPages(f.r, md.Codec, start, start+md.TotalCompressedSize, values); err != nil {
			return nil, fmt.Errorf("row group %d: column %s: %w", i, l.name, err)
		}
		c := newColumn(l, n, rows.Time)
		var err error
		if buf, err = c.read(chunks[l.col.Index()], buf); err != nil {
			return nil, fmt.Errorf("row group %d: column %s: %w", i, l.name, err)
		}
		if c.rows != n {
			return nil, fmt.Errorf("row group %d: column %s: %d values for %d rows", i, l.name, c.rows, n)
		}
		if c.vec != nil && c.set > 0 {
			rows.Keys = append(rows.Keys, store.ColKey{Name: l.name, Type: c.vec.Type})
			rows.Cols = append(rows.Cols, c.vec)
		}
	}
	return rows, nil
}
