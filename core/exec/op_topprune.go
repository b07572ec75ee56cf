package exec

import (
	"math"
	"sync/atomic"

	"github.com/aplite/aplite/vector"
)

// Top-N pruning. A top keeps N rows; once some worker holds N rows whose
// first sort key is at least as good as a value T, no row worse than T can
// be among the answer, whatever the other keys say. The workers of a run
// share the best such T (topShared), drop the rows of each batch that are
// worse before anything else is evaluated, and the scan skips whole parts
// whose column statistics say that none of their rows can reach T, taking
// the parts with the best statistics first so T is tight early.
//
// Values are compared as ranks: a uint64 per value, larger is better, in
// the order compareKeys gives (cmp.Compare: NaN below every number, -0
// equal to +0), so one comparison serves ints, times and reals either way.
// Nulls have no rank: they are better than every value when the key puts
// nulls first, worse when it puts them last.

// topShared is the threshold a run's workers share: the rank of the N-th
// best row some worker holds. Any published rank is a valid threshold, so
// a racing publisher that lowers it only makes pruning less tight.
type topShared struct {
	rank atomic.Uint64
	set  atomic.Bool
}

// load returns the threshold, if one is known.
func (t *topShared) load() (uint64, bool) {
	if !t.set.Load() {
		return 0, false
	}
	return t.rank.Load(), true
}

// raise publishes r when it is better than the current threshold.
func (t *topShared) raise(r uint64) {
	for {
		cur := t.rank.Load()
		if t.set.Load() && r <= cur {
			return
		}
		if t.rank.CompareAndSwap(cur, r) {
			t.set.Store(true)
			return
		}
	}
}

// topShared returns this run's threshold of s.
func (s *topStage) shared(x *Ctx) *topShared {
	v, _ := x.runs.do(s, func() (any, error) { return &topShared{}, nil })
	return v.(*topShared)
}

// rankable reports whether a key vector's values can be ranked. Dynamic
// values are ranked by dynAscKey, which some distinct values share: the
// threshold then keeps rows that tie with it on the key and lose on the
// value, which is safe, as ties are.
func rankable(t vector.Type) bool {
	return t == vector.Int || t == vector.DateTime || t == vector.TimeSpan || t == vector.Float || t == vector.Dynamic
}

// intRank is the rank of an integer (long, datetime, timespan) key.
func intRank(v int64, desc bool) uint64 {
	u := uint64(v) ^ 1<<63
	if !desc {
		return ^u
	}
	return u
}

// floatRank is the rank of a real key: NaN lowest, -0 as +0.
func floatRank(f float64, desc bool) uint64 {
	var u uint64
	if f == f {
		if f == 0 {
			f = 0
		}
		b := math.Float64bits(f)
		if b>>63 != 0 {
			u = ^b
		} else {
			u = b | 1<<63
		}
	}
	if !desc {
		return ^u
	}
	return u
}

// rankAt is the rank of non-null row i of a rankable vector.
func rankAt(v *vector.Vector, i int, desc bool) uint64 {
	switch v.Type {
	case vector.Float:
		return floatRank(v.Floats[i], desc)
	case vector.Dynamic:
		return dynRank(v, i, desc)
	}
	return intRank(v.Ints[i], desc)
}

// dynRank is the rank of non-null row i of a dynamic vector: its number
// from the mixed side when it reads as one, else from the boxed value.
func dynRank(v *vector.Vector, i int, desc bool) uint64 {
	var a uint64
	if m := v.Mix(); m != nil && m.Real.Get(i) {
		a = uint64(sortNumber)<<62 | floatRank(m.Floats[i], true)>>2
	} else {
		a = dynAscKey(v.Dyns[i])
	}
	if !desc {
		return ^a
	}
	return a
}

// keepAtLeast appends to dst the rows (all n when rows is nil) of the
// rankable, non-constant key vector kv that can still make a top whose
// threshold is thr: those ranked at or above it, and nulls when they sort
// first. Ties stay, so later keys still decide among them.
func keepAtLeast(kv *vector.Vector, rows []int32, n int, thr uint64, k sortKey, dst []int32) []int32 {
	nulls := kv.HasNulls()
	keep := func(i int32) bool {
		if nulls && kv.IsNull(int(i)) {
			return !k.NullsLast
		}
		return rankAt(kv, int(i), k.Desc) >= thr
	}
	if !nulls && kv.Type == vector.Float {
		return keepFloats(kv.Floats, rows, n, thr, k.Desc, dst)
	}
	if nulls || kv.Type == vector.Dynamic {
		if rows == nil {
			for i := range int32(n) {
				if keep(i) {
					dst = append(dst, i)
				}
			}
			return dst
		}
		for _, i := range rows {
			if keep(i) {
				dst = append(dst, i)
			}
		}
		return dst
	}
	// The common case, integers without nulls, compares values directly:
	// v ranks at or above thr exactly when v is on thr's good side.
	lim := int64((thr ^ 1<<63))
	if !k.Desc {
		lim = int64(^thr ^ 1<<63)
	}
	ints := kv.Ints
	switch {
	case rows == nil && k.Desc:
		for i, v := range ints[:n] {
			if v >= lim {
				dst = append(dst, int32(i))
			}
		}
	case rows == nil:
		for i, v := range ints[:n] {
			if v <= lim {
				dst = append(dst, int32(i))
			}
		}
	case k.Desc:
		for _, i := range rows {
			if ints[i] >= lim {
				dst = append(dst, i)
			}
		}
	default:
		for _, i := range rows {
			if ints[i] <= lim {
				dst = append(dst, i)
			}
		}
	}
	return dst
}

// keepFloats is keepAtLeast for reals without nulls: a value ranks at or
// above thr exactly when it is on the good side of thr's value, NaN being
// the worst descending and the best ascending.
func keepFloats(fs []float64, rows []int32, n int, thr uint64, desc bool, dst []int32) []int32 {
	u := thr
	if !desc {
		u = ^thr
	}
	if u == 0 && desc { // thr is NaN, the worst value: all stay
		return appendAll(dst, rows, n)
	}
	bits := ^u
	if u>>63 != 0 {
		bits = u &^ (1 << 63)
	}
	// Ascending, a NaN threshold keeps NaN alone: t = NaN fails v <= t.
	t := math.Float64frombits(bits)
	if u == 0 {
		t = math.NaN()
	}
	switch {
	case rows == nil && desc:
		for i, v := range fs[:n] {
			if v >= t {
				dst = append(dst, int32(i))
			}
		}
	case rows == nil:
		for i, v := range fs[:n] {
			if v <= t || v != v {
				dst = append(dst, int32(i))
			}
		}
	case desc:
		for _, i := range rows {
			if fs[i] >= t {
				dst = append(dst, i)
			}
		}
	default:
		for _, i := range rows {
			if v := fs[i]; v <= t || v != v {
				dst = append(dst, i)
			}
		}
	}
	return dst
}

// appendAll appends rows, or 0..n-1 when rows is nil.
func appendAll(dst, rows []int32, n int) []int32 {
	if rows != nil {
		return append(dst, rows...)
	}
	for i := range int32(n) {
		dst = append(dst, i)
	}
	return dst
}

// nthRank returns the rank of the n-th best non-null row of kv among rows
// (all when nil), found with a bounded min-heap of ranks; ok is false when
// there are fewer than n such rows.
func nthRank(kv *vector.Vector, rows []int32, count, n int, desc bool) (uint64, bool) {
	h := make([]uint64, 0, n)
	nulls := kv.HasNulls()
	push := func(r uint64) {
		if len(h) < n {
			h = append(h, r)
			for j := len(h) - 1; j > 0; {
				p := (j - 1) / 2
				if h[p] <= h[j] {
					break
				}
				h[p], h[j] = h[j], h[p]
				j = p
			}
			return
		}
		if r <= h[0] {
			return
		}
		h[0] = r
		for j := 0; ; {
			l, rt, w := 2*j+1, 2*j+2, j
			if l < n && h[l] < h[w] {
				w = l
			}
			if rt < n && h[rt] < h[w] {
				w = rt
			}
			if w == j {
				break
			}
			h[j], h[w] = h[w], h[j]
			j = w
		}
	}
	for k := range count {
		i := k
		if rows != nil {
			i = int(rows[k])
		}
		if nulls && kv.IsNull(i) {
			continue
		}
		// Most rows lose to the heap's root; test before the call.
		if r := rankAt(kv, i, desc); len(h) < n || r > h[0] {
			push(r)
		}
	}
	if len(h) < n {
		return 0, false
	}
	return h[0], true
}

// prefilterTop narrows b's selection to the rows that can still make the
// top N by key k: those at or above the run's shared threshold, then, when
// more than 4N are left, those at or above this batch's own N-th best,
// which it publishes. It returns the evaluated key (nil when the key
// cannot be ranked and nothing was filtered).
func prefilterTop(x *Ctx, b *Batch, k sortKey, n int, sh *topShared) (*vector.Vector, error) {
	kv, err := k.E.Run(x, b)
	if err != nil {
		return nil, err
	}
	if kv.Const || !rankable(kv.Type) {
		return nil, nil
	}
	if thr, ok := sh.load(); ok {
		b.Sel = keepAtLeast(kv, b.Sel, b.N, thr, k, make([]int32, 0, min(b.Rows(), 4*n)))
	}
	if b.Rows() > 4*n {
		if thr, ok := nthRank(kv, b.Sel, b.Rows(), n, k.Desc); ok {
			sh.raise(thr)
			b.Sel = keepAtLeast(kv, b.Sel, b.N, thr, k, make([]int32, 0, 2*n))
		}
	}
	return kv, nil
}

// publishBest shares the rank of a worker's N-th best row once it holds N.
func (s *topStage) publishBest(sh *topShared, best []topRow) {
	if int64(len(best)) < s.N || s.N == 0 {
		return
	}
	last := best[len(best)-1]
	kv := last.keys[0]
	if kv.Const || !rankable(kv.Type) || kv.IsNull(int(last.row)) {
		return
	}
	sh.raise(rankAt(kv, int(last.row), s.Keys[0].Desc))
}
