package exec

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/aplite/aplite/core/store"
)

// Narrow time windows: blocks are written sorted by _time (merge.go), so
// when a part only straddles the query's time range, the rows inside it
// form one run that two binary searches find. The scan then cuts morsels
// over that run alone instead of filtering every row of the part, which
// is most of the work of a query over a few minutes of a large block.

// SortedTimes remembers, per immutable part, whether its _time column is
// sorted: checking costs a pass over the column, and a part never
// changes. Compaction keeps making parts, so past maxSortedTimes entries
// it starts over rather than grow for the life of the process.
type SortedTimes struct {
	m sync.Map
	n atomic.Int64
}

const maxSortedTimes = 1 << 16

func (s *SortedTimes) sorted(p store.Part, ts []int64) bool {
	if !p.Immutable() {
		return slices.IsSorted(ts)
	}
	if v, ok := s.m.Load(p.ID()); ok {
		return v.(bool)
	}
	ok := slices.IsSorted(ts)
	if s.n.Add(1) > maxSortedTimes {
		s.m.Clear()
		s.n.Store(1)
	}
	s.m.Store(p.ID(), ok)
	return ok
}

// narrowToTime cuts the loader's row ranges down to the rows whose _time
// may be inside the scan's bounds, when the part's times are sorted and
// without nulls. The range is widened to multiples of 64 so column slices share
// their validity bitmaps; the per-row filter still checks the few rows at
// its edges.
func (s *ScanSource) narrowToTime(x *Ctx, pl *partLoader) {
	ti := s.Sch.Index(store.TimeField)
	if ti < 0 || x.Sorted == nil {
		return
	}
	v, err := pl.Col(ti)
	if err != nil || v.HasNulls() || v.Const || len(v.Ints) < pl.n {
		return // the morsels report the error, or filter row by row
	}
	ts := v.Ints[:pl.n]
	if !x.Sorted.sorted(pl.sp.Part, ts) {
		return
	}
	lo, hi := 0, pl.n
	if pl.needLo {
		lo = sort.Search(pl.n, func(i int) bool { return ts[i] >= s.TimeLo })
	}
	if pl.needHi {
		hi = sort.Search(pl.n, func(i int) bool { return ts[i] >= s.TimeHi })
	}
	if hi <= lo {
		pl.ranges = nil
		return
	}
	pl.ranges = intersectRanges(pl.ranges, lo&^63, min((hi+63)&^63, pl.n))
}
