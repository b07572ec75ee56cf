package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/db/parquetfile"
)

// parquetStream is a Parquet file read as a stream of row groups. Its
// fields come from the file's schema, so the query is planned without
// decoding anything, and each row group offers its min/max statistics:
// the scan skips, unread, the row groups that no row of the query's
// simple filters (==, <, >, in, and/or of those) or time range can come
// from.
type parquetStream struct {
	path   string
	keep   func(string) bool
	decl   *fieldDecl
	now    int64
	fields []db.ColKey
	// progress counts what the query has read (nil: not shown).
	progress *scanPart
}

// newParquetStream reads the file's schema for the fields keep accepts.
func newParquetStream(path string, decl *fieldDecl, keep func(string) bool) (*parquetStream, error) {
	f, pf, err := openParquet(path, keep)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if skipped := pf.Skipped(); len(skipped) > 0 {
		fmt.Fprintf(os.Stderr, "aplite query: %s: repeated fields not loaded (lists and maps are not supported yet): %s\n",
			path, strings.Join(skipped, ", "))
	}
	s := &parquetStream{path: path, keep: keep, decl: decl, now: time.Now().UnixNano(), fields: []db.ColKey{}}
	for _, k := range pf.Fields() {
		if t := decl.declared(k.Name); t != db.Null {
			k.Type = t
		}
		s.fields = append(s.fields, k)
	}
	return s, nil
}

// openParquet opens path and reads its footer for the fields keep keeps.
func openParquet(path string, keep func(string) bool) (*os.File, *parquetfile.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	pf, err := parquetfile.Open(f, st.Size(), keep)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, pf, nil
}

func (s *parquetStream) Fields() []db.ColKey { return s.fields }

func (s *parquetStream) Open() (db.ChunkReader, error) {
	s.progress.restart()
	f, pf, err := openParquet(s.path, s.keep)
	if err != nil {
		return nil, err
	}
	return &rowGroups{s: s, f: f, pf: pf}, nil
}

// rowGroups hands out a file's row groups in order.
type rowGroups struct {
	s    *parquetStream
	f    *os.File
	pf   *parquetfile.File
	next int
}

func (r *rowGroups) Next() (db.Chunk, error) {
	if r.next == r.pf.NumRowGroups() {
		return nil, io.EOF
	}
	r.next++
	return &rowGroupChunk{r: r, i: r.next - 1}, nil
}

func (r *rowGroups) Close() error { return r.f.Close() }

// rowGroupChunk is one row group of a Parquet stream.
type rowGroupChunk struct {
	r *rowGroups
	i int
}

func (c *rowGroupChunk) Decode() (*db.Rows, error) {
	rows, err := c.r.pf.ReadRowGroup(c.i, c.r.s.now)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.r.s.path, err)
	}
	c.r.s.decl.retype(rows, c.r.s.path)
	var n int64
	for _, r := range c.r.pf.ChunkRanges(c.i) {
		n += r[1] - r[0]
	}
	c.r.s.progress.read(n, rows.N)
	return rows, nil
}

// Stats turns the row group's column statistics into a part the scan can
// prune by. A field the command line retypes (-type) keeps no bounds:
// they are the file's values, not the ones the query sees.
func (c *rowGroupChunk) Stats() db.Part {
	st := &rowGroupStats{n: int(c.r.pf.NumRows(c.i))}
	var cols []db.ColumnMeta
	st.lo, st.hi, cols = c.r.pf.RowGroupStats(c.i)
	for _, cm := range cols {
		if t := c.r.s.decl.declared(cm.Key.Name); t != db.Null && t != cm.Key.Type {
			cm.Key.Type, cm.Min, cm.Max = t, nil, nil
		}
		st.metas = append(st.metas, cm)
	}
	return st
}

// rowGroupStats is a row group seen through its statistics only.
type rowGroupStats struct {
	n      int
	lo, hi int64
	metas  []db.ColumnMeta
}

func (s *rowGroupStats) ID() string                { return "parquet-statistics" }
func (s *rowGroupStats) Rows() int                 { return s.n }
func (s *rowGroupStats) TimeRange() (int64, int64) { return s.lo, s.hi }
func (s *rowGroupStats) Columns() []db.ColumnMeta  { return s.metas }
func (s *rowGroupStats) Immutable() bool           { return false }
func (s *rowGroupStats) ReadColumn(db.ColKey) (*db.Vector, error) {
	return nil, errRowGroupStats
}

// errRowGroupStats would mean the scan read data from statistics.
var errRowGroupStats = errors.New("a row group's statistics hold no values")
