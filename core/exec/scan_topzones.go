package exec

import (
	"math"
	"runtime"
	"sync"
	"weak"

	"github.com/aplite/aplite/vector"
)

// Zone maps for top-N pruning inside a part. A part's statistics bound
// the top's key over the whole part, and at 10M events in ten blocks of
// a million every block holds some of the largest values: no block is
// skipped, and the top tested every one of the ten million keys against
// the threshold (`sort by req_duration_ms desc | take 10` spent 60% of
// its time there, 1.48x DuckDB's time, which skips by zone maps too).
//
// So a cached key column gets, once, the best rank of each zone of
// ZoneRows rows, and the scan hands a top only the zones that can still
// reach the run's threshold. After the first morsel the threshold is the
// N-th best of 65,536 rows, and a zone of 1,024 rows seldom holds a
// better one; the fraction shrinks as the threshold tightens.
//
// Zones are built only for columns of the column cache: they last as long
// as the decoded column, so their cost (one pass over the column) is paid
// once for every later query. Without the cache every query decodes the
// column anyway and building zones would cost as much as what they save.

// ZoneRows is how many rows one zone summarises: a multiple of 64, and a
// divisor of morselRows and termGranuleRows so zones never straddle a
// morsel.
const ZoneRows = 1024

// Null content of a zone.
const (
	zoneNoNull uint8 = iota
	zoneSomeNull
	zoneAllNull
)

// topZones summarises a key column for one direction: the best rank of a
// non-null row of each zone, and whether the zone has nulls.
type topZones struct {
	best  []uint64
	nulls []uint8
}

// reaches reports whether some row of zone z can reach threshold thr:
// a value ranked at or above it, or a null when nulls sort first.
func (z *topZones) reaches(i int, thr uint64, nullsLast bool) bool {
	switch z.nulls[i] {
	case zoneAllNull:
		return !nullsLast
	case zoneSomeNull:
		if !nullsLast {
			return true
		}
	}
	return z.best[i] >= thr
}

// zoneKey names the zones of a vector for one direction. The vector is
// held weakly: the zones go when the column leaves the cache and is
// collected.
type zoneKey struct {
	v    weak.Pointer[vector.Vector]
	desc bool
}

// zoneEntry builds a vector's zones once, however many workers ask.
type zoneEntry struct {
	once sync.Once
	z    *topZones
}

// zoneTable holds the zones of cached key columns.
var zoneTable sync.Map // zoneKey -> *zoneEntry

// zonesOf returns the zones of the rankable, non-constant vector v for
// direction desc, building them on first use.
func zonesOf(v *vector.Vector, desc bool) *topZones {
	k := zoneKey{weak.Make(v), desc}
	e, ok := zoneTable.Load(k)
	if !ok {
		var loaded bool
		e, loaded = zoneTable.LoadOrStore(k, &zoneEntry{})
		if !loaded {
			runtime.AddCleanup(v, func(k zoneKey) { zoneTable.Delete(k) }, k)
		}
	}
	ent := e.(*zoneEntry)
	ent.once.Do(func() { ent.z = buildZones(v, desc) })
	return ent.z
}

// buildZones summarises v zone by zone.
func buildZones(v *vector.Vector, desc bool) *topZones {
	n := v.Len
	nz := (n + ZoneRows - 1) / ZoneRows
	z := &topZones{best: make([]uint64, nz), nulls: make([]uint8, nz)}
	nulls := v.HasNulls()
	for i := range nz {
		lo, hi := i*ZoneRows, min((i+1)*ZoneRows, n)
		switch {
		case nulls || v.Type == vector.Dynamic:
			z.best[i], z.nulls[i] = zoneWithNulls(v, lo, hi, desc)
		case v.Type == vector.Float:
			z.best[i] = floatZone(v.Floats[lo:hi], desc)
		default:
			z.best[i] = intZone(v.Ints[lo:hi], desc)
		}
	}
	return z
}

// zoneWithNulls is the best rank of the non-null rows [lo, hi) of v and
// the zone's null content.
func zoneWithNulls(v *vector.Vector, lo, hi int, desc bool) (uint64, uint8) {
	var best uint64
	seen, null := false, false
	for i := lo; i < hi; i++ {
		if v.IsNull(i) {
			null = true
			continue
		}
		if r := rankAt(v, i, desc); !seen || r > best {
			best, seen = r, true
		}
	}
	switch {
	case !seen:
		return 0, zoneAllNull
	case null:
		return best, zoneSomeNull
	}
	return best, zoneNoNull
}

// floatZone is the best rank among fs: the largest number descending
// (NaN ranks lowest, so an all-NaN zone has NaN's rank), the smallest
// ascending unless a NaN, which sorts first, is there.
func floatZone(fs []float64, desc bool) uint64 {
	if desc {
		mx, seen := math.Inf(-1), false
		for _, f := range fs {
			if f >= mx {
				mx, seen = f, true
			}
		}
		if !seen {
			return floatRank(math.NaN(), true)
		}
		return floatRank(mx, true)
	}
	mn := math.Inf(1)
	for _, f := range fs {
		if f < mn {
			mn = f
		} else if f != f {
			return floatRank(f, false)
		}
	}
	return floatRank(mn, false)
}

// intZone is the best rank among the longs (or times, timespans) vs.
func intZone(vs []int64, desc bool) uint64 {
	mx, mn := vs[0], vs[0]
	for _, x := range vs[1:] {
		mx, mn = max(mx, x), min(mn, x)
	}
	if desc {
		return intRank(mx, true)
	}
	return intRank(mn, false)
}

// topZoneSel narrows a morsel [lo, hi) of pl's rows, whose selection is
// sel (nil: every row), to the rows in zones of the top's key that can
// still reach the run's threshold. It returns sel unchanged when zones do
// not apply, and skip when no row is left.
func (pl *partLoader) topZoneSel(sh *topShared, lo, hi int, sel []int32) (out []int32, skip bool, err error) {
	tp := pl.src.top
	if tp == nil || tp.colIdx < 0 || !pl.x.Cache.holds() || !pl.sp.Part.Immutable() {
		return sel, false, nil
	}
	if _, _, _, paged := pl.pagedKey(pl.src.Sch[tp.colIdx]); paged && pl.paged {
		return sel, false, nil // the key is read by pages, not whole
	}
	v, err := pl.Col(tp.colIdx)
	if err != nil {
		return nil, false, err
	}
	if v.Const || !rankable(v.Type) || v.Len != pl.n {
		return sel, false, nil
	}
	k := tp.st.Keys[0]
	z := zonesOf(v, k.Desc)
	if tp.unfiltered && pl.whole() {
		// A Once, not a flag: the other workers wait for the seed instead
		// of reading their first morsel of the part in full without it.
		pl.topSeed.Do(func() {
			if thr, ok := z.nthBest(int(tp.st.N)); ok {
				sh.raise(thr)
			}
		})
	}
	thr, ok := sh.load()
	if !ok {
		return sel, false, nil
	}
	first, last := lo/ZoneRows, (hi-1)/ZoneRows
	all, none := true, true
	for i := first; i <= last; i++ {
		if z.reaches(i, thr, k.NullsLast) {
			none = false
		} else {
			all = false
		}
	}
	switch {
	case none:
		return nil, true, nil
	case all:
		return sel, false, nil
	}
	reach := func(row int32) bool { return z.reaches((lo+int(row))/ZoneRows, thr, k.NullsLast) }
	if sel != nil {
		out = sel[:0:0]
		for _, r := range sel {
			if reach(r) {
				out = append(out, r)
			}
		}
		return out, len(out) == 0, nil
	}
	for i := first; i <= last; i++ {
		if !z.reaches(i, thr, k.NullsLast) {
			continue
		}
		for r := max(i*ZoneRows, lo); r < min((i+1)*ZoneRows, hi); r++ {
			out = append(out, int32(r-lo))
		}
	}
	return out, false, nil
}

// holds reports whether the query's cache can keep columns, so that zones
// built over them last beyond the query.
func (v *cacheView) holds() bool { return v != nil && v.c.limit > 0 }

// whole reports whether the scan emits every row of the part: no time
// bound or term filter leaves any out.
func (pl *partLoader) whole() bool {
	return !pl.needLo && !pl.needHi && len(pl.ranges) == 1 && pl.ranges[0] == rowRange{0, pl.n}
}

// nthBest is a threshold the zones prove: each zone with a non-null row
// has a row of its best rank, so n zones whose best is at least T are n
// distinct rows at least as good as T, and the top's N-th best row ranks
// at least T. ok is false when fewer than n zones have a non-null row.
func (z *topZones) nthBest(n int) (uint64, bool) {
	if n <= 0 {
		return 0, false
	}
	// A min-heap of the n best zone bests; its root is the n-th best.
	h := make(uint64Heap, 0, n)
	for i, b := range z.best {
		if z.nulls[i] == zoneAllNull {
			continue
		}
		switch {
		case len(h) < n:
			h.push(b)
		case b > h[0]:
			h.replaceRoot(b)
		}
	}
	if len(h) < n {
		return 0, false
	}
	return h[0], true
}

// uint64Heap is a min-heap.
type uint64Heap []uint64

func (h *uint64Heap) push(x uint64) {
	*h = append(*h, x)
	s := *h
	for j := len(s) - 1; j > 0; {
		p := (j - 1) / 2
		if s[p] <= s[j] {
			break
		}
		s[p], s[j] = s[j], s[p]
		j = p
	}
}

func (h uint64Heap) replaceRoot(x uint64) {
	h[0] = x
	for j := 0; ; {
		l, r, w := 2*j+1, 2*j+2, j
		if l < len(h) && h[l] < h[w] {
			w = l
		}
		if r < len(h) && h[r] < h[w] {
			w = r
		}
		if w == j {
			return
		}
		h[j], h[w] = h[w], h[j]
		j = w
	}
}
