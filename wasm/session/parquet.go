package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/fileformat/parquet"
)

// Parquet is the format name of a Parquet file. It is streamed only:
// Parquet needs random access, which the browser gives as byte ranges
// (File.slice), so a ParquetLoader asks for the footer and then for one
// row group at a time, and never holds the whole file.
const Parquet = "parquet"

// ParquetLoader streams one Parquet file into a dataset: the worker
// reads the footer (the last parquet.FooterSize bytes), calls
// BeginParquet, then hands over each of RowGroups' byte ranges in turn.
type ParquetLoader struct {
	db     *db.DB
	name   string
	file   *parquet.File
	ranges parquet.Ranges
	groups []RowGroup
	now    int64
	res    LoadResult
}

// RowGroup is one row group of a Parquet file: the bytes [Off, End) of
// the file to read before decoding its Rows rows.
type RowGroup struct {
	Off  int64 `json:"off"`
	End  int64 `json:"end"`
	Rows int64 `json:"rows"`
}

// BeginParquet replaces the dataset called name with an empty one that
// RowGroupData fills. size is the file's length and footer its last
// bytes, at least the footer and trailer (parquet.FooterSize).
func (s *Session) BeginParquet(name string, size int64, footer []byte, now time.Time) (*ParquetLoader, error) {
	if err := store.ValidateName(name); err != nil {
		return nil, err
	}
	if int64(len(footer)) > size {
		return nil, fmt.Errorf("the footer is %d bytes, the file %d", len(footer), size)
	}
	if now.IsZero() {
		now = s.now()
	}
	l := &ParquetLoader{db: s.db, name: name, now: now.UnixNano(),
		res: LoadResult{Dataset: name, Format: Parquet, Failures: []ingest.Failure{}}}
	l.ranges.Add(size-int64(len(footer)), footer)
	f, err := parquet.Open(&l.ranges, size, nil)
	if err != nil {
		return nil, err
	}
	l.file = f
	for i := range f.NumRowGroups() {
		off, end := f.Span(i)
		l.groups = append(l.groups, RowGroup{Off: off, End: end, Rows: f.NumRows(i)})
	}
	if sk := f.Skipped(); len(sk) > 0 {
		l.res.Failures = append(l.res.Failures, ingest.Failure{
			Error: "repeated fields not loaded (lists and maps are not supported yet): " + strings.Join(sk, ", ")})
	}
	_ = s.db.Delete(name)
	if _, err := s.db.Create(name); err != nil {
		return nil, err
	}
	return l, nil
}

// RowGroups lists the row groups in file order.
func (l *ParquetLoader) RowGroups() []RowGroup { return l.groups }

// RowGroupData decodes row group i from data, the file's bytes
// [Off, End) of RowGroups()[i], and appends its rows; it returns the
// totals so far. data is let go of before it returns.
func (l *ParquetLoader) RowGroupData(i int, data []byte) (LoadResult, error) {
	if i < 0 || i >= len(l.groups) {
		return l.res, fmt.Errorf("no row group %d (the file has %d)", i, len(l.groups))
	}
	g := l.groups[i]
	if int64(len(data)) != g.End-g.Off {
		return l.res, fmt.Errorf("row group %d: %d bytes, want %d (bytes %d to %d)", i, len(data), g.End-g.Off, g.Off, g.End)
	}
	l.ranges.Add(g.Off, data)
	defer l.ranges.Drop(g.Off)
	rows, err := l.file.ReadRowGroup(i, l.now)
	if err != nil {
		return l.res, fmt.Errorf("cannot read the Parquet file: %w", err)
	}
	if _, err := l.db.Append(l.name, rows); err != nil {
		return l.res, err
	}
	l.res.Ingested += rows.N
	return l.res, nil
}

// End finishes the load: buffered rows become compressed blocks.
func (l *ParquetLoader) End() (LoadResult, error) {
	ds, err := l.db.Dataset(l.name)
	if err != nil {
		return l.res, err
	}
	return l.res, ds.Flush()
}

// loadParquet loads a Parquet file held whole in data, as the streamed
// load does with each row group's bytes.
func (s *Session) loadParquet(name string, data []byte, now time.Time) (LoadResult, error) {
	l, err := s.BeginParquet(name, int64(len(data)), data, now)
	if err != nil {
		return LoadResult{Dataset: name, Format: Parquet}, err
	}
	for i, g := range l.RowGroups() {
		if _, err := l.RowGroupData(i, data[g.Off:g.End]); err != nil {
			return l.res, err
		}
	}
	return l.End()
}
