package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
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
	fields []store.ColKey
}

// newParquetStream reads the file's schema for the fields keep accepts.
func newParquetStream(path string, decl *fieldDecl, keep func(string) bool) (*parquetStream, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	leaves, skipped := parquetLeaves(pf.Root(), keep)
	if len(skipped) > 0 {
		fmt.Fprintf(os.Stderr, "aplite query: %s: repeated fields not loaded (lists and maps are not supported yet): %s\n",
			path, strings.Join(skipped, ", "))
	}
	s := &parquetStream{path: path, keep: keep, decl: decl, now: time.Now().UnixNano(), fields: []store.ColKey{}}
	for _, l := range leaves {
		if l.name == store.TimeField {
			continue
		}
		t := leafType(l)
		if decl != nil && decl.types[l.name] != vector.Null {
			t = decl.types[l.name]
		}
		s.fields = append(s.fields, store.ColKey{Name: l.name, Type: t})
	}
	return s, nil
}

func openParquet(path string) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a Parquet file: %w", path, err)
	}
	return f, pf, nil
}

// leafType is the column type readRowGroup stores a leaf's values as.
func leafType(l parquetLeaf) vector.Type {
	if l.unit != 0 || l.date {
		return vector.DateTime
	}
	switch l.col.Type().Kind() {
	case parquet.Boolean:
		return vector.Bool
	case parquet.Int32, parquet.Int64:
		return vector.Int
	case parquet.Float, parquet.Double:
		return vector.Float
	}
	return vector.String
}

func (s *parquetStream) Fields() []store.ColKey { return s.fields }

func (s *parquetStream) Open() (core.ChunkReader, error) {
	f, pf, err := openParquet(s.path)
	if err != nil {
		return nil, err
	}
	leaves, _ := parquetLeaves(pf.Root(), s.keep)
	return &rowGroups{s: s, f: f, pf: pf, leaves: leaves}, nil
}

// rowGroups hands out a file's row groups in order.
type rowGroups struct {
	s      *parquetStream
	f      *os.File
	pf     *parquet.File
	leaves []parquetLeaf
	next   int
}

func (r *rowGroups) Next() (core.Chunk, error) {
	groups := r.pf.RowGroups()
	if r.next == len(groups) {
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

func (c *rowGroupChunk) Decode() (*store.Rows, error) {
	rows, err := readRowGroup(c.r.pf.RowGroups()[c.i], c.r.leaves, c.r.s.now)
	if err != nil {
		return nil, fmt.Errorf("%s: row group %d: %w", c.r.s.path, c.i, err)
	}
	c.r.s.decl.retype(rows, c.r.s.path)
	return rows, nil
}

// Stats turns the row group's column statistics into a part the scan can
// prune by: the _time range, and per leaf its min and max.
func (c *rowGroupChunk) Stats() store.Part {
	meta := c.r.pf.Metadata().RowGroups[c.i]
	st := &rowGroupStats{n: int(meta.NumRows), lo: math.MinInt64, hi: math.MaxInt64}
	for _, l := range c.r.leaves {
		ci := l.col.Index()
		if ci < 0 || ci >= len(meta.Columns) {
			return nil
		}
		cs := meta.Columns[ci].MetaData.Statistics
		lo, hi, ok := leafBounds(l, cs)
		if l.name == store.TimeField {
			if ok && l.unit != 0 {
				st.lo, st.hi = lo.(int64), hi.(int64)
			}
			continue
		}
		if cs.NullCount == meta.NumRows && len(cs.MinValue) == 0 {
			continue // only nulls: as if the column were absent
		}
		t := leafType(l)
		if c.r.s.decl != nil && c.r.s.decl.types[l.name] != vector.Null && c.r.s.decl.types[l.name] != t {
			ok = false // retyped after reading: the stored bounds do not apply
			t = c.r.s.decl.types[l.name]
		}
		cm := store.ColumnMeta{Key: store.ColKey{Name: l.name, Type: t}, NullCount: int(cs.NullCount)}
		if ok {
			cm.Min, cm.Max = lo, hi
		}
		st.metas = append(st.metas, cm)
	}
	return st
}

// leafBounds decodes a leaf's min and max statistics as the values the
// scan compares (int64 for ints and times in ns, float64, string).
func leafBounds(l parquetLeaf, cs format.Statistics) (lo, hi any, ok bool) {
	mn, mx := cs.MinValue, cs.MaxValue
	if len(mn) == 0 || len(mx) == 0 {
		return nil, nil, false
	}
	scale := int64(1)
	switch {
	case l.date:
		scale = int64(24 * time.Hour)
	case l.unit != 0:
		scale = int64(l.unit)
	}
	switch l.col.Type().Kind() {
	case parquet.Int32:
		if len(mn) != 4 || len(mx) != 4 {
			return nil, nil, false
		}
		return int64(int32(binary.LittleEndian.Uint32(mn))) * scale, int64(int32(binary.LittleEndian.Uint32(mx))) * scale, true
	case parquet.Int64:
		if len(mn) != 8 || len(mx) != 8 {
			return nil, nil, false
		}
		return int64(binary.LittleEndian.Uint64(mn)) * scale, int64(binary.LittleEndian.Uint64(mx)) * scale, true
	case parquet.Float:
		if len(mn) != 4 || len(mx) != 4 {
			return nil, nil, false
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(mn))), float64(math.Float32frombits(binary.LittleEndian.Uint32(mx))), true
	case parquet.Double:
		if len(mn) != 8 || len(mx) != 8 {
			return nil, nil, false
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(mn)), math.Float64frombits(binary.LittleEndian.Uint64(mx)), true
	case parquet.ByteArray:
		if l.unit != 0 || l.date {
			return nil, nil, false
		}
		return string(mn), string(mx), true
	}
	return nil, nil, false
}

// rowGroupStats is a row group seen through its statistics only.
type rowGroupStats struct {
	n      int
	lo, hi int64
	metas  []store.ColumnMeta
}

func (s *rowGroupStats) ID() string                  { return "parquet-statistics" }
func (s *rowGroupStats) Rows() int                   { return s.n }
func (s *rowGroupStats) TimeRange() (int64, int64)   { return s.lo, s.hi }
func (s *rowGroupStats) Columns() []store.ColumnMeta { return s.metas }
func (s *rowGroupStats) Immutable() bool             { return false }
func (s *rowGroupStats) ReadColumn(store.ColKey) (*vector.Vector, error) {
	return nil, errRowGroupStats
}

// errRowGroupStats would mean the scan read data from statistics.
var errRowGroupStats = errors.New("a row group's statistics hold no values")
