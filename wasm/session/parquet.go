package session

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/db/parquetfile"
)

// Parquet is the format name of a Parquet file. Parquet needs random
// access, which the browser gives as byte ranges (File.slice), so a
// ParquetLoader asks for the footer and then for one row group's column
// chunks at a time, and never holds the whole file.
//
// A Parquet file may also be loaded a few columns at a time: the console
// loads only _time when the file is dropped, and before each query reads
// the columns the query uses that are not loaded yet (ParquetNeeds), so
// `summarize count() by status` over a million events reads two columns
// of thirty. The session remembers, per dataset, the footer and which
// columns it holds; the worker keeps the File to read them from.
const Parquet = "parquet"

// ParquetLoader streams one Parquet file into a dataset: the worker
// reads the footer (the last fileformat/parquet.FooterSize bytes), calls
// BeginParquet, then hands over each row group's ranges in turn.
type ParquetLoader struct {
	db     *db.DB
	name   string
	file   *parquetfile.File
	ranges parquetfile.Ranges
	groups []RowGroup
	now    int64
	res    LoadResult
}

// RowGroup is one row group of a Parquet file: the byte ranges [off,
// end) of the file to read before decoding its Rows rows.
type RowGroup struct {
	Ranges [][2]int64 `json:"ranges"`
	Rows   int64      `json:"rows"`
}

// parquetSource is a dataset loaded from some of a Parquet file's
// columns, which a query may ask more of.
type parquetSource struct {
	size   int64
	footer []byte
	now    time.Time
	loaded []string    // the fields in the dataset, sorted
	fields []db.ColKey // every field of the file, for Datasets
	// rows is set when only the first row groups are loaded (every
	// column, for a take): how many rows they hold. whole then describes
	// the whole file for Datasets, as the dataset loaded before did.
	rows  int64
	whole *db.Info
}

// BeginParquet replaces the dataset called name with an empty one that
// RowGroupData fills. size is the file's length and footer its last
// bytes, at least the footer and trailer (fileformat/parquet.FooterSize). fields
// nil reads every column; otherwise only those fields and _time are
// read, and ParquetNeeds tells which a query needs that are not.
func (s *Session) BeginParquet(name string, size int64, footer []byte, fields []string, now time.Time) (*ParquetLoader, error) {
	return s.beginParquet(name, size, footer, fields, 0, now)
}

// BeginParquetFirst is BeginParquet for every column of only the first
// row groups, as many as hold rows rows (a Need's Rows): `take 100` over
// a million events reads one row group of sixteen. The dataset then
// holds those rows alone, and the next query that needs more loads the
// file again.
func (s *Session) BeginParquetFirst(name string, size int64, footer []byte, rows int64, now time.Time) (*ParquetLoader, error) {
	return s.beginParquet(name, size, footer, nil, max(rows, 1), now)
}

func (s *Session) beginParquet(name string, size int64, footer []byte, fields []string, rows int64, now time.Time) (*ParquetLoader, error) {
	if err := db.ValidateName(name); err != nil {
		return nil, err
	}
	if int64(len(footer)) > size {
		return nil, fmt.Errorf("the footer is %d bytes, the file %d", len(footer), size)
	}
	// The file reads through l.ranges, which RowGroupData fills.
	l := &ParquetLoader{db: s.db, name: name, res: LoadResult{Dataset: name, Format: Parquet, Failures: []db.Failure{}}}
	l.ranges.Add(size-int64(len(footer)), footer)
	all, err := parquetfile.Open(&l.ranges, size, nil)
	if err != nil {
		return nil, err
	}
	f := all
	if fields != nil {
		fields = slices.Clone(fields) // not nil when empty: only _time
		slices.Sort(fields)
		f = all.Select(func(n string) bool { _, ok := slices.BinarySearch(fields, n); return ok })
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	src := s.sources[name]
	delete(s.sources, name)
	if now.IsZero() {
		now = s.now()
		if src != nil && src.size == size && bytes.Equal(src.footer, footer) {
			now = src.now // the same file read again: the same ingest time
		}
	}
	if fields != nil {
		s.sources[name] = &parquetSource{size: size, footer: footer, now: now,
			loaded: fields, fields: all.Fields()}
	}
	l.file, l.now = f, now.UnixNano()
	var held int64
	for i := range f.NumRowGroups() {
		if rows > 0 && held >= rows {
			break
		}
		l.groups = append(l.groups, RowGroup{Ranges: f.ChunkRanges(i), Rows: f.NumRows(i)})
		held += f.NumRows(i)
	}
	if rows > 0 && len(l.groups) < f.NumRowGroups() {
		first := &parquetSource{size: size, footer: footer, now: now, fields: all.Fields(), rows: held, whole: s.wholeInfo(name, src)}
		for _, k := range first.fields {
			first.loaded = append(first.loaded, k.Name)
		}
		slices.Sort(first.loaded)
		first.loaded = slices.Compact(first.loaded)
		s.sources[name] = first
	}
	if sk := f.Skipped(); len(sk) > 0 {
		l.res.Failures = append(l.res.Failures, db.Failure{
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

// RowGroupData decodes row group i from parts, the file's bytes in each
// of RowGroups()[i].Ranges, and appends its rows; it returns the totals
// so far. The parts are let go of before it returns.
func (l *ParquetLoader) RowGroupData(i int, parts [][]byte) (LoadResult, error) {
	if i < 0 || i >= len(l.groups) {
		return l.res, fmt.Errorf("no row group %d (the file has %d)", i, len(l.groups))
	}
	g := l.groups[i]
	if len(parts) != len(g.Ranges) {
		return l.res, fmt.Errorf("row group %d: %d byte ranges, want %d", i, len(parts), len(g.Ranges))
	}
	for j, r := range g.Ranges {
		if int64(len(parts[j])) != r[1]-r[0] {
			return l.res, fmt.Errorf("row group %d: %d bytes for bytes %d to %d", i, len(parts[j]), r[0], r[1])
		}
		l.ranges.Add(r[0], parts[j])
	}
	defer func() {
		for _, r := range g.Ranges {
			l.ranges.Drop(r[0])
		}
	}()
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
	return l.res, l.db.Flush(l.name)
}

// Need is a dataset loaded from some of a Parquet file's columns that a
// query needs more of: load it again with Fields (nil: every column).
type Need struct {
	Dataset string   `json:"dataset"`
	Fields  []string `json:"fields"`
	// Rows, when set, asks for every column of the first row groups that
	// hold this many rows (BeginParquetFirst): the query takes that many
	// rows of the dataset and does not care which. The worker loads the
	// whole file instead when the answer comes out shorter (a where or
	// the time range dropped rows).
	Rows int64 `json:"rows,omitempty"`
}

// ParquetNeeds lists the Parquet datasets apl names whose loaded columns
// miss fields it may read. A query that does not parse needs nothing:
// running it reports the error.
func (s *Session) ParquetNeeds(apl string) []Need {
	r, err := db.QueryReads(apl)
	if err != nil {
		return []Need{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Need{}
	for name, src := range s.sources {
		if !r.AnyTable && !slices.Contains(r.Tables, name) {
			continue
		}
		if n := takeRows(apl, name); n > 0 && (src.rows == 0 || src.rows < n) {
			out = append(out, Need{Dataset: name, Rows: n})
			continue
		} else if n > 0 {
			continue // its first row groups are loaded whole
		}
		if r.Keep == nil {
			out = append(out, Need{Dataset: name})
			continue
		}
		loaded := src.loaded
		if src.rows > 0 {
			loaded = nil // every column of some rows: load the file again
		}
		want := slices.Clone(loaded)
		for _, k := range src.fields {
			if r.Keep(k.Name) && !slices.Contains(want, k.Name) {
				want = append(want, k.Name)
			}
		}
		if len(want) > len(loaded) || src.rows > 0 {
			slices.Sort(want)
			out = append(out, Need{Dataset: name, Fields: want})
		}
	}
	slices.SortFunc(out, func(a, b Need) int { return strings.Compare(a.Dataset, b.Dataset) })
	return out
}

// takeRows returns N when apl is a take of N rows of the dataset name
// through operators that keep or drop rows one by one (where, extend,
// project...; db.Inspection's Take), so that the file's first N rows may
// answer it; 0 otherwise.
func takeRows(apl, name string) int64 {
	q, err := db.Inspect(apl)
	if err != nil {
		return 0
	}
	n, _ := q.Take(name)
	return n
}

// wholeInfo describes the dataset name, whose source was prev, before a
// load of the first row groups replaces it: the whole file, for Datasets.
func (s *Session) wholeInfo(name string, prev *parquetSource) *db.Info {
	if prev != nil && prev.whole != nil {
		return prev.whole
	}
	for _, info := range s.db.Datasets() {
		if info.Name == name {
			return &info
		}
	}
	return nil
}

// forget drops what the session knows of a dataset's file (Parquet, or
// read in place), when the dataset is replaced or dropped.
func (s *Session) forget(name string) {
	s.mu.Lock()
	delete(s.sources, name)
	delete(s.files, name)
	s.mu.Unlock()
}

// parquetFields is every field of the Parquet file behind a dataset,
// loaded or not, and the whole file's description when only its first
// row groups are loaded.
func (s *Session) parquetFields(name string) ([]db.ColKey, *db.Info) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if src := s.sources[name]; src != nil {
		if src.rows > 0 {
			return src.fields, src.whole
		}
		return src.fields, nil
	}
	return nil, nil
}

// loadParquet loads a Parquet file held whole in data, as the streamed
// load does with each row group's bytes.
func (s *Session) loadParquet(name string, data []byte, now time.Time) (LoadResult, error) {
	l, err := s.BeginParquet(name, int64(len(data)), data, nil, now)
	if err != nil {
		return LoadResult{Dataset: name, Format: Parquet}, err
	}
	for i, g := range l.RowGroups() {
		parts := make([][]byte, len(g.Ranges))
		for j, r := range g.Ranges {
			parts[j] = data[r[0]:r[1]]
		}
		if _, err := l.RowGroupData(i, parts); err != nil {
			return l.res, err
		}
	}
	return l.End()
}
