package exec

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// scanStats counts what scans did, for the result's status block.
type scanStats struct {
	BlocksExamined atomic.Int64
	BlocksMatched  atomic.Int64
	BlocksCached   atomic.Int64
	RowsExamined   atomic.Int64
	RowsMatched    atomic.Int64
	MinBlockTime   atomic.Int64
	MaxBlockTime   atomic.Int64
	Seen           atomic.Bool
	// PagesDecoded counts the column pages decoded for parts of which the
	// scan needs only some rows (scan_pages.go).
	PagesDecoded atomic.Int64
}

// noteBlock records a part's time range for minBlockTime/maxBlockTime.
func (s *scanStats) noteBlock(lo, hi int64) {
	if s.Seen.CompareAndSwap(false, true) {
		s.MinBlockTime.Store(lo)
		s.MaxBlockTime.Store(hi)
		return
	}
	for {
		cur := s.MinBlockTime.Load()
		if lo >= cur || s.MinBlockTime.CompareAndSwap(cur, lo) {
			break
		}
	}
	for {
		cur := s.MaxBlockTime.Load()
		if hi <= cur || s.MaxBlockTime.CompareAndSwap(cur, hi) {
			break
		}
	}
}

// scanPart is one part to scan and the dataset it belongs to.
type scanPart struct {
	Part    store.Part
	dataset int
}

// ScanSource reads the parts of one or more datasets in parallel. Its
// Schema is the union of the datasets' fields; a field whose type differs
// between parts is unified (int+real → real, otherwise dynamic).
type ScanSource struct {
	Sch      Schema
	Datasets []string
	Parts    []scanPart
	// TimeLo/timeHi bound _time to [timeLo, timeHi); pruned by part range
	// and filtered per row. hasLo/hasHi say whether each bound applies.
	TimeLo, TimeHi int64
	HasLo, HasHi   bool
	// Prune, when set, lets planned predicates skip a part from its column
	// statistics without decoding it.
	Prune []func(p store.Part) bool
	// Granules, when set, let planned term tests skip a part, or the
	// granules of its rows, by its term filters (op_termprune.go).
	Granules []func(p store.Part) []bool
	// WithSource names a column holding the dataset name (union withsource).
	WithSource string
	// Stream, when set, is the table the scan reads chunk by chunk
	// instead of parts (source_stream.go).
	Stream *streamScan
	// top, when set, is a top N directly above the scan whose threshold
	// lets the scan skip parts by their statistics (op_topprune.go).
	top *topPrune
}

// Schema implements Source.
func (s *ScanSource) Schema() Schema { return s.Sch }

// newScanSource builds the scan of the given snapshots.
func newScanSource(snaps []*store.Snapshot) *ScanSource {
	s := &ScanSource{Sch: ScanSchema(snaps)}
	for di, snap := range snaps {
		s.Datasets = append(s.Datasets, snap.Dataset)
		for _, p := range snap.Parts {
			s.Parts = append(s.Parts, scanPart{Part: p, dataset: di})
		}
	}
	return s
}

// ScanSchema is the schema of a scan of snaps: every field of their
// blocks, of one type each.
func ScanSchema(snaps []*store.Snapshot) Schema {
	// Sized by the first part's columns, which most parts repeat: the
	// map is not grown while the planner works out every scan's schema.
	n := 0
	if len(snaps) > 0 && len(snaps[0].Parts) > 0 {
		n = len(snaps[0].Parts[0].Columns())
	}
	types := make(map[string]vector.Type, n)
	order := make([]string, 0, n)
	for _, snap := range snaps {
		for _, p := range snap.Parts {
			for _, cm := range p.Columns() {
				t, seen := types[cm.Key.Name]
				if !seen {
					order = append(order, cm.Key.Name)
					types[cm.Key.Name] = cm.Key.Type
					continue
				}
				types[cm.Key.Name] = unifyTypes(t, cm.Key.Type)
			}
		}
	}
	return datasetSchema(order, types)
}

// datasetSchema orders fields as the service does: _sysTime, _time, then
// the other fields alphabetically.
func datasetSchema(names []string, types map[string]vector.Type) Schema {
	slices.Sort(names)
	out := make(Schema, 2, len(names)+2)
	out[0], out[1] = ColDef{Name: store.SysTimeField, Type: vector.DateTime}, ColDef{Name: store.TimeField, Type: vector.DateTime}
	for _, n := range names {
		if n == store.SysTimeField || n == store.TimeField {
			continue
		}
		t := types[n]
		if t == vector.Null {
			t = vector.String
		}
		out = append(out, ColDef{Name: n, Type: t})
	}
	return out
}

// unifyTypes is the type of a field seen with types a and b.
func unifyTypes(a, b vector.Type) vector.Type {
	switch {
	case a == b:
		return a
	case a == vector.Null:
		return b
	case b == vector.Null:
		return a
	case a.IsNumeric() && b.IsNumeric():
		return vector.Float
	}
	return vector.Dynamic
}

// morselRows is how many rows of a part one scan task covers: parts are
// cut into morsels so that a single large block still keeps every core
// busy. A multiple of 64 so validity bitmaps slice without copying.
const morselRows = 1 << 16

// scanTask is one morsel of one part.
type scanTask struct {
	part   *partLoader
	lo, hi int
}

// Run implements Source.
func (s *ScanSource) Run(x *Ctx, workers int, emit func(int, *Batch) error) error {
	if s.Stream != nil {
		return s.runStream(x, workers, emit)
	}
	tasks := s.Plan(x)
	var shared *topShared
	if s.top != nil {
		shared = s.top.st.shared(x)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	var stop atomic.Bool
	if workers > len(tasks) {
		workers = len(tasks)
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var err error
			defer func() {
				if err != nil {
					once.Do(func() { firstErr = err })
					stop.Store(true)
				}
			}()
			defer RecoverInto(&err)
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(tasks) {
					return
				}
				if tasks[i].part.beaten(shared) {
					continue
				}
				if err = s.scanMorsel(x, w, tasks[i], emit); err != nil {
					return
				}
			}
		}(w)
	}
	wg.Wait()
	return firstErr
}

// Plan prunes parts by time range and statistics and cuts the rest into
// morsels.
func (s *ScanSource) Plan(x *Ctx) []scanTask {
	masks := s.granuleMasks()
	var perPart [][]scanTask
	for i, sp := range s.Parts {
		var mask []bool
		if masks != nil {
			mask = masks[i]
		}
		if ts := s.partTasks(x, sp, mask); len(ts) > 0 {
			perPart = append(perPart, ts)
		}
	}
	if s.top != nil {
		return topOrder(perPart, max(x.Workers, 1))
	}
	return interleave(perPart)
}

// interleave lays out the parts' morsels: the first morsel of every part,
// then the second, ...
func interleave(perPart [][]scanTask) []scanTask {
	// Workers start on different parts and decode their columns in
	// parallel instead of waiting on the same part's decode.
	var tasks []scanTask
	for m := 0; ; m++ {
		added := false
		for _, ts := range perPart {
			if m < len(ts) {
				tasks = append(tasks, ts[m])
				added = true
			}
		}
		if !added {
			return tasks
		}
	}
}

// granuleWidth bounds the parts whose term tests run at once.
const granuleWidth = 16

// granuleMasks computes the granule mask of every part pruning leaves,
// side by side (nil when the scan has no term tests): on object storage
// the first test of a block reads its column's filters, one round trip,
// and a scan of many blocks would otherwise wait for them one by one.
func (s *ScanSource) granuleMasks() [][]bool {
	if len(s.Granules) == 0 {
		return nil
	}
	masks := make([][]bool, len(s.Parts))
	sem := make(chan struct{}, granuleWidth)
	var wg sync.WaitGroup
	for i, sp := range s.Parts {
		if s.skipPart(sp.Part) {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			masks[i] = s.granuleMask(sp.Part)
		}()
	}
	wg.Wait()
	return masks
}

// skipPart reports whether p's time range or column statistics rule out
// every row, without decoding it.
func (s *ScanSource) skipPart(p store.Part) bool {
	lo, hi := p.TimeRange()
	if p.Rows() == 0 || (s.HasLo && hi < s.TimeLo) || (s.HasHi && lo >= s.TimeHi) {
		return true
	}
	for _, pr := range s.Prune {
		if pr(p) {
			return true
		}
	}
	return false
}

// partTasks counts one part in the scan's statistics and returns its
// morsels: none when pruning rules it out.
func (s *ScanSource) partTasks(x *Ctx, sp scanPart, mask []bool) []scanTask {
	p := sp.Part
	x.Stats.BlocksExamined.Add(1)
	if s.skipPart(p) {
		return nil
	}
	lo, hi := p.TimeRange()
	n := p.Rows()
	pl := &partLoader{src: s, x: x, sp: sp, n: n, metas: p.Columns(), cols: make([]loadOnce, len(s.Sch)),
		ranges: granuleRanges(mask, n)}
	if len(pl.ranges) == 0 {
		return nil // the term filters rule out every row
	}
	x.Stats.BlocksMatched.Add(1)
	x.Stats.noteBlock(lo, hi)
	pl.needLo = s.HasLo && lo < s.TimeLo
	pl.needHi = s.HasHi && hi >= s.TimeHi
	if pl.needLo || pl.needHi {
		s.narrowToTime(x, pl)
	}
	if s.top != nil {
		pl.topRank, pl.topNever, pl.topBounded = s.top.partBound(p)
	}
	rows := 0
	for _, r := range pl.ranges {
		rows += r.hi - r.lo
	}
	x.Stats.RowsExamined.Add(int64(rows))
	_, pageable := p.(store.PagedPart)
	pl.paged = rows < n && pageable && p.Immutable()
	return pl.morsels(nil)
}

// rowRange is a run [lo, hi) of a part's rows to scan.
type rowRange struct{ lo, hi int }

// morsels cuts the loader's row ranges into scan tasks of at most
// morselRows rows, appended to dst.
//
// When the scan reads the part in pages, morsels end at granule
// boundaries, so each one lies in one page of the writer's paged columns
// and is a slice of it, not a join of several.
func (pl *partLoader) morsels(dst []scanTask) []scanTask {
	for _, r := range pl.ranges {
		for lo := r.lo; lo < r.hi; {
			hi := min(lo+morselRows, r.hi)
			if pl.paged {
				hi = min((lo/TermGranuleRows+1)*TermGranuleRows, r.hi)
			}
			dst = append(dst, scanTask{part: pl, lo: lo, hi: hi})
			lo = hi
		}
	}
	return dst
}

// granuleMask is, per granule of p, whether the scan's term tests leave
// it; nil when there are no tests.
func (s *ScanSource) granuleMask(p store.Part) []bool {
	var mask []bool
	for _, g := range s.Granules {
		m := g(p)
		if mask == nil {
			mask = m
			continue
		}
		for i := range mask {
			mask[i] = mask[i] && m[i]
		}
	}
	return mask
}

// granuleRanges are the rows of a part of n rows that mask leaves: all of
// them without a mask, none when it rules every granule out.
func granuleRanges(mask []bool, n int) []rowRange {
	if mask == nil {
		return []rowRange{{0, n}}
	}
	var out []rowRange
	for i, ok := range mask {
		if !ok {
			continue
		}
		lo, hi := i*TermGranuleRows, min((i+1)*TermGranuleRows, n)
		if k := len(out) - 1; k >= 0 && out[k].hi == lo {
			out[k].hi = hi
			continue
		}
		out = append(out, rowRange{lo, hi})
	}
	return out
}

// intersectRanges keeps the parts of rs inside [lo, hi).
func intersectRanges(rs []rowRange, lo, hi int) []rowRange {
	var out []rowRange
	for _, r := range rs {
		if l, h := max(r.lo, lo), min(r.hi, hi); l < h {
			out = append(out, rowRange{l, h})
		}
	}
	return out
}

// partLoader decodes each column of a part at most once per query, shared
// by the morsels of that part, through the engine's column cache.
type partLoader struct {
	src            *ScanSource
	x              *Ctx
	sp             scanPart
	n              int
	metas          []store.ColumnMeta
	cols           []loadOnce
	needLo, needHi bool
	// ranges are the rows to scan, in order: the whole part, or what the
	// term filters (granuleRanges) and a narrow time window
	// (narrowToTime) leave of it.
	ranges []rowRange
	// paged is set when ranges leave rows out: paged columns are then
	// read by the pages under the ranges (scan_pages.go).
	paged bool
	// cells holds the pages cellAt read, by schema column and first row.
	cells sync.Map
	// topRank is the best rank of the part's rows for the scan's top when
	// topBounded; topNever says none can reach any threshold.
	topRank              uint64
	topNever, topBounded bool
	// topSeed seeds the top's threshold from the part's zones, once
	// (scan_topzones.go).
	topSeed sync.Once
}

type loadOnce struct {
	once   sync.Once
	loaded atomic.Bool // the whole column has been read
	v      *vector.Vector
	err    error
}

// Col returns schema column i of the whole part.
func (pl *partLoader) Col(i int) (*vector.Vector, error) {
	lo := &pl.cols[i]
	lo.once.Do(func() {
		c := pl.src.Sch[i]
		if pl.src.WithSource != "" && c.Name == pl.src.WithSource {
			lo.v = vector.NewConst(vector.String, pl.src.Datasets[pl.sp.dataset], pl.n)
			return
		}
		lo.v, lo.err = readColumn(pl.x, pl.sp.Part, pl.metas, c, pl.n)
		lo.loaded.Store(true)
	})
	return lo.v, lo.err
}

// morselCol returns schema column i over rows [lo, hi) of the part: from
// the pages under them when the scan reads the part in pages, else a
// slice of the whole column.
func (pl *partLoader) morselCol(i, lo, hi int) (*vector.Vector, error) {
	if pl.paged {
		if v, ok, err := pl.pagedCol(i, lo, hi); ok {
			return v, err
		}
	}
	v, err := pl.Col(i)
	if err != nil {
		return nil, err
	}
	if lo == 0 && hi == pl.n {
		return v, nil
	}
	return v.Slice(lo, hi), nil
}

// scanMorsel emits rows [t.lo, t.hi) of a part as a lazily loaded batch.
func (s *ScanSource) scanMorsel(x *Ctx, w int, t scanTask, emit func(int, *Batch) error) error {
	pl := t.part
	n := t.hi - t.lo
	b := &Batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(s.Sch)), N: n}}
	b.load = func(i int) (*vector.Vector, error) { return pl.morselCol(i, t.lo, t.hi) }
	b.cell = func(i, row int) (*vector.Vector, int, error) { return pl.cellAt(i, t.lo+row) }
	if pl.needLo || pl.needHi {
		tv, err := b.Col(s.Sch.Index(store.TimeField))
		if err != nil {
			return err
		}
		sel := make([]int32, 0, n)
		for i, tm := range tv.Ints[:n] {
			if (!pl.needLo || tm >= s.TimeLo) && (!pl.needHi || tm < s.TimeHi) {
				sel = append(sel, int32(i))
			}
		}
		if len(sel) == 0 {
			return nil
		}
		if len(sel) < n {
			b.Sel = sel
		}
	}
	if s.top != nil {
		sel, skip, err := pl.topZoneSel(s.top.st.shared(x), t.lo, t.hi, b.Sel)
		if err != nil || skip {
			return err
		}
		b.Sel = sel
	}
	return emit(w, b)
}

// readColumn decodes the column c of a part, converting it to the schema
// type and merging the per-type columns of a mixed-type field. A column
// stored with the schema type is read as it is; any other is converted
// once and cached as converted (convertedColumn).
func readColumn(x *Ctx, p store.Part, metas []store.ColumnMeta, c ColDef, n int) (*vector.Vector, error) {
	var keys []store.ColKey
	for _, m := range metas {
		if m.Key.Name == c.Name {
			keys = append(keys, m.Key)
		}
	}
	if len(keys) == 0 {
		return vector.NewNulls(c.Type, n), nil
	}
	if len(keys) == 1 && keys[0].Type == c.Type {
		v, err := x.readPartColumn(p, keys[0])
		if err != nil {
			return nil, err
		}
		if v == nil || v.Type == vector.Null {
			return vector.NewNulls(c.Type, n), nil
		}
		return v, nil
	}
	return x.convertedColumn(p, keys, c, n)
}

// readPartColumn decodes one stored column, through the column cache for
// immutable parts.
func (x *Ctx) readPartColumn(p store.Part, k store.ColKey) (*vector.Vector, error) {
	if !p.Immutable() || x.Cache == nil {
		return p.ReadColumn(k)
	}
	key := colCacheKey{part: p.ID(), Col: k}
	if v := x.Cache.Get(key); v != nil {
		x.Stats.BlocksCached.Add(1)
		return v, nil
	}
	v, err := p.ReadColumn(k)
	if err == nil && v != nil {
		// The small side (vector/small.go) is built once, for columns
		// that stay cached, where the kernels that read it gain.
		v = dictEncode(v).WithSmall()
		x.Cache.Put(key, v)
	}
	return v, err
}
