// Package parquetfile is the front door's Parquet reader and writer: the
// command line and the browser read Parquet files and write results
// through it, over the rows and results of package db. It is apart from
// db so that the server, which meets no Parquet file, does not link the
// Parquet library.
package parquetfile

import (
	"io"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/fileformat/parquet"
)

// File is a Parquet file whose footer has been read: its fields,
// row groups and their statistics. Row groups are decoded one at a time
// into Rows that Append stores or a TableStream hands to a query, so a
// caller never holds the whole file (package fileformat/parquet).
type File struct{ f *parquet.File }

// Ranges is an io.ReaderAt over the byte ranges of a file the
// browser has read so far (the footer, then one row group's chunks).
type Ranges = parquet.Ranges

// Open reads the footer of the size-byte Parquet file r for the
// fields keep accepts (nil: all).
func Open(r io.ReaderAt, size int64, keep func(string) bool) (*File, error) {
	f, err := parquet.Open(r, size, keep)
	if err != nil {
		return nil, err
	}
	return &File{f}, nil
}

// Write writes a query's result as a Parquet file.
func Write(w io.Writer, o *db.Output) error { return parquet.Write(w, o) }

// Select returns the file seen through the fields keep accepts.
func (p *File) Select(keep func(string) bool) *File {
	return &File{p.f.Select(keep)}
}

// Fields lists the fields of the file that are read, with their types.
func (p *File) Fields() []db.ColKey { return p.f.Fields() }

// Skipped lists the repeated fields (lists, maps) that are not read.
func (p *File) Skipped() []string { return p.f.Skipped() }

// NumRowGroups is the number of row groups.
func (p *File) NumRowGroups() int { return p.f.NumRowGroups() }

// NumRows is the number of rows of row group i.
func (p *File) NumRows(i int) int64 { return p.f.NumRows(i) }

// ChunkRanges are the byte ranges [off, end) row group i is read from.
func (p *File) ChunkRanges(i int) [][2]int64 { return p.f.ChunkRanges(i) }

// InWindow reports whether row group i may hold events in [lo, hi] (zero
// times are unbounded), by its _time statistics.
func (p *File) InWindow(i int, lo, hi time.Time) bool { return p.f.InWindow(i, lo, hi) }

// RowGroupStats is row group i's time range and column statistics, for a
// scan that skips row groups unread.
func (p *File) RowGroupStats(i int) (lo, hi int64, cols []db.ColumnMeta) {
	return p.f.RowGroupStats(i)
}

// ReadRowGroup decodes row group i into rows whose _sysTime is now.
func (p *File) ReadRowGroup(i int, now int64) (*db.Rows, error) { return p.f.ReadRowGroup(i, now) }

// Writer writes a query's result to a Parquet file in pieces: each Write
// appends the rows of one Output as row groups, so an export never holds
// the whole result.
type Writer = parquet.Writer

// NewWriter starts a Parquet file on w with the given columns (names and
// their type names, as Output.Columns returns them).
func NewWriter(w io.Writer, names, types []string) (*Writer, error) {
	return parquet.NewWriter(w, names, types)
}
