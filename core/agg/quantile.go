package agg

import (
	"math"
	"slices"

	"github.com/aplite/aplite/vector"
)

// quantState is the per-group value store behind percentile,
// percentiles_array and histogram: exact while a group has at most
// exactQuantile values (they are kept and sorted at the end), then a
// DDSketch with 1% relative error (ddsketch.go). NaN and null are not
// stored. Datetimes are sketched as offsets from base (the query start),
// so the 1% applies to the distance from it rather than from 1970.
type quantState[T number] struct {
	t      vector.Type
	base   float64
	groups []qgroup[T]
	// exact is how many values all groups keep exactly; past
	// exactTotal, growing groups turn into sketches.
	exact int
	// sketches is how many groups have turned into sketches.
	sketches int
	// batchN and touched are updateDense's per-group counts of one batch
	// (all zero between batches) and the groups it saw.
	batchN  []int32
	touched []uint32
}

// Bytes implements Sized: the exact values with the slack of their
// chunks, and a ddsketch's bins per sketched group (a few hundred for
// values spanning nine decades at 1% accuracy).
func (q *quantState[T]) Bytes() int64 {
	return int64(q.exact)*sizeOfT[T]()*5/4 + int64(q.sketches)*2048 + int64(cap(q.groups))*sizeOfT[qgroup[T]]() + int64(cap(q.batchN))*4
}

// qgroup holds one group's values: full chunks plus the chunk being
// filled, so a large group grows without copying what it already holds
// and merging two groups only links their chunks.
type qgroup[T number] struct {
	vals     []T   // the chunk being filled (all values once flattened)
	full     [][]T // completed chunks
	n        int   // exact values held (vals and full)
	sk       *ddsketch
	isSorted bool
}

// chunkLen is the size of a full chunk.
const chunkLen = 8192

// add stores one exact value.
func (g *qgroup[T]) add(x T) {
	if len(g.vals) == cap(g.vals) && cap(g.vals) >= chunkLen {
		g.full = append(g.full, g.vals)
		g.vals = make([]T, 0, chunkLen)
	}
	g.vals = append(g.vals, x)
	g.n++
}

// reserve makes room for c more values in the chunk being filled. A chunk
// already worth keeping is linked as full and a new one started, so large
// groups never copy what they hold; a small one grows by doubling.
func (g *qgroup[T]) reserve(c int) {
	if cap(g.vals)-len(g.vals) >= c {
		return
	}
	if len(g.vals) >= chunkLen/8 {
		g.full = append(g.full, g.vals)
		g.vals = make([]T, 0, max(c, chunkLen))
		return
	}
	nv := make([]T, len(g.vals), max(len(g.vals)+c, 2*cap(g.vals), 16))
	copy(nv, g.vals)
	g.vals = nv
}

// each calls f for every exact value.
func (g *qgroup[T]) each(f func(T)) {
	for _, c := range g.full {
		for _, x := range c {
			f(x)
		}
	}
	for _, x := range g.vals {
		f(x)
	}
}

// flatten gathers every exact value into vals.
func (g *qgroup[T]) flatten() {
	if len(g.full) == 0 {
		return
	}
	all := make([]T, 0, g.n)
	for _, c := range g.full {
		all = append(all, c...)
	}
	g.vals, g.full = append(all, g.vals...), nil
}

// Values are kept exactly (and percentiles are exact) while a group holds
// at most exactQuantile values, or while the whole state holds at most
// exactTotal (8 MB of float64s): a few large groups stay exact and are
// answered by selection, which is also faster than sketching each value.
// Past both limits a group becomes a DDSketch (1% relative error).
const exactQuantile = 1024

// exactTotal is 1Mi values: a million-event percentile stays exact, and
// each scan worker's state past it is sketches. At 4Mi (32 MB a worker,
// more while chunks grow) a percentile over 10M events held over 60 MB
// that the collector then let the heap double (bench/README.md, "Peak
// RSS"). It is a variable only so tests can force the sketch path.
var exactTotal = 1 << 20

func (q *quantState[T]) grow(n int) { q.groups = growSlice(q.groups, n) }

func (q *quantState[T]) update(v *vector.Vector, vals []T, sel []int32, groups []uint32) {
	gs, valid := q.groups, v.Valid
	if sel == nil && !v.Const && valid == nil {
		// The common case: every row, no nulls.
		q.updateDense(vals[:len(groups)], groups)
		return
	}
	for k, g := range groups {
		r := physRow(sel, k)
		if v.Const {
			r = 0
		}
		if !validAt(valid, r) {
			continue
		}
		x := vals[r]
		if x != x {
			continue
		}
		q.addTo(&gs[g], x)
	}
}

// updateDense adds a batch of values, every row valid, a batch at a time:
// it counts each group's values first, so an exact group makes room for
// all of them at once (a new chunk rather than doubling and copying) and
// the values are then stored without a capacity check each. Groups are
// turned into sketches at the end of the batch, so the state may pass
// exactTotal by at most one batch, which only keeps more values exact.
func (q *quantState[T]) updateDense(vals []T, groups []uint32) {
	gs := q.groups
	if cap(q.batchN) < len(gs) {
		q.batchN = make([]int32, len(gs))
	}
	cnt, touched := q.batchN[:len(gs)], q.touched[:0]
	for k, g := range groups {
		if x := vals[k]; x == x {
			if cnt[g] == 0 {
				touched = append(touched, g)
			}
			cnt[g]++
		}
	}
	for _, g := range touched {
		if grp := &gs[g]; grp.sk == nil {
			grp.reserve(int(cnt[g]))
		}
	}
	for k, g := range groups {
		x := vals[k]
		if x != x {
			continue
		}
		grp := &gs[g]
		if grp.sk != nil {
			grp.sk.add(float64(x) - q.base)
			continue
		}
		l := len(grp.vals)
		grp.vals = grp.vals[:l+1]
		grp.vals[l] = x
	}
	for _, g := range touched {
		grp := &gs[g]
		if grp.sk == nil {
			grp.n += int(cnt[g])
			q.exact += int(cnt[g])
			if grp.n > exactQuantile && q.exact > exactTotal {
				q.toSketch(grp)
			}
		}
		cnt[g] = 0
	}
	q.touched = touched
}

// addTo adds one non-NaN value to a group: exactly, or to its sketch,
// turning the group into a sketch once the state is over its exact budget.
func (q *quantState[T]) addTo(grp *qgroup[T], x T) {
	if grp.sk != nil {
		grp.sk.add(float64(x) - q.base)
		return
	}
	grp.add(x)
	q.exact++
	if grp.n > exactQuantile && q.exact > exactTotal {
		q.toSketch(grp)
	}
}

func (q *quantState[T]) toSketch(grp *qgroup[T]) {
	sk := &ddsketch{}
	grp.each(func(x T) { sk.add(float64(x) - q.base) })
	grp.sk = sk
	q.sketches++
	q.exact -= grp.n
	grp.vals, grp.full, grp.n = nil, nil, 0
}

func (q *quantState[T]) merge(o *quantState[T], into []uint32) {
	for g, dst := range into {
		src, grp := &o.groups[g], &q.groups[dst]
		switch {
		case src.sk != nil:
			if grp.sk == nil {
				q.toSketch(grp)
			}
			grp.sk.merge(src.sk)
		case grp.sk != nil:
			src.each(func(x T) { grp.sk.add(float64(x) - q.base) })
		default:
			// Link the other group's chunks; no value is copied.
			grp.full = append(grp.full, src.full...)
			if len(src.vals) > 0 {
				grp.full = append(grp.full, src.vals)
			}
			grp.n += src.n
			q.exact += src.n
			if grp.n > exactQuantile && q.exact > exactTotal {
				q.toSketch(grp)
			}
		}
	}
}

// count is the number of values group g holds.
func (q *quantState[T]) count(g int) uint64 {
	if sk := q.groups[g].sk; sk != nil {
		return sk.n
	}
	return uint64(q.groups[g].n)
}

// nearestRank is KQL's percentile definition: the smallest value such
// that at least p percent of the values are less than or equal to it,
// i.e. the value of rank ceil(p/100·n) in ascending order (at least 1).
// p = 0 is the minimum and p = 100 the maximum.
func nearestRank(p float64, n uint64) uint64 {
	r := math.Ceil(p*float64(n)/100 - 1e-9)
	if r < 1 {
		return 1
	}
	if r > float64(n) {
		return n
	}
	return uint64(r)
}

// sorted prepares group g for quantile queries. Small groups are sorted;
// large ones are left as they are and answered by selection.
func (q *quantState[T]) sorted(g int) {
	if grp := &q.groups[g]; grp.n <= 4*exactQuantile {
		grp.flatten()
		slices.Sort(grp.vals)
		grp.isSorted = true
	}
}

// quantile returns the p-th percentile of group g, which must hold at
// least one value and have been prepared with sorted.
func (q *quantState[T]) quantile(g int, p float64) T {
	grp := &q.groups[g]
	n := q.count(g)
	r := nearestRank(p, n)
	if grp.sk == nil {
		if !grp.isSorted {
			return radixSelect(grp, int(r-1))
		}
		return grp.vals[r-1]
	}
	return fromFloat[T](grp.sk.quantile(r)+q.base, q.t != vector.Float)
}

// fromFloat converts a sketch estimate back to the payload type, rounding
// to the nearest integer for longs, datetimes and timespans.
func fromFloat[T number](v float64, round bool) T {
	if round {
		v = math.Round(v)
	}
	return T(v)
}

// selectKth returns the k-th smallest value (0-based), partially
// reordering vals: Hoare's quickselect with a median-of-three pivot, O(n)
// on average. Later calls on the same slice stay correct because the
// values only move, never change.
func selectKth[T number](vals []T, k int) T {
	lo, hi := 0, len(vals)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if vals[mid] < vals[lo] {
			vals[mid], vals[lo] = vals[lo], vals[mid]
		}
		if vals[hi] < vals[lo] {
			vals[hi], vals[lo] = vals[lo], vals[hi]
		}
		if vals[hi] < vals[mid] {
			vals[hi], vals[mid] = vals[mid], vals[hi]
		}
		pivot := vals[mid]
		i, j := lo, hi
		for i <= j {
			for vals[i] < pivot {
				i++
			}
			for pivot < vals[j] {
				j--
			}
			if i <= j {
				vals[i], vals[j] = vals[j], vals[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return vals[k]
		}
	}
	return vals[k]
}
