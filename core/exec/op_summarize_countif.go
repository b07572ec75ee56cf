package exec

import (
	"github.com/aplite/aplite/vector"
)

// countif without a selection. A fused countif still wrote the row and
// group of every passing row for the count to read back. With few groups
// it instead adds each row's test result, 0 or 1, to a counter of its
// group in one of four lanes (row k in lane k%4, so that consecutive rows
// of one group do not wait on each other's increment), and the lanes are
// summed into the count once per batch.

// laneGroupLimit bounds the groups counted in lanes: the lanes are summed
// and cleared once per batch, which must stay small beside the batch.
const laneGroupLimit = 1 << 10

// countLanes counts the rows (row k is physical row sel[k], or k) of
// groups g, ids below groups, whose predicate holds into cr.counter; it
// reports false, doing nothing, when the column or the groups do not suit
// the lanes.
func (cr *condRun) countLanes(v *vector.Vector, sel []int32, g []uint32, groups int) bool {
	f := cr.f
	if groups > laneGroupLimit || v.Const || v.Valid != nil || v.Type == vector.Null ||
		(f.kind == vector.Int) != v.Type.IsInt64Backed() || (f.kind != vector.Int && v.Type != f.kind) {
		return false
	}
	if f.empty {
		return true
	}
	if cr.lanes == nil {
		cr.lanes = new(laneArray)
	}
	// Two passes: the test writes 0 or 1 per row (a tight loop with no
	// stores to shared counters), then the lanes add them up. Fused, the
	// test and the read-modify-write of a lane made each other wait.
	cr.hits = growHits(cr.hits, len(g))
	hits := cr.hits[:len(g)]
	switch f.kind {
	case vector.Int:
		testInts(hits, v.Ints, sel, f.lo, uint64(f.hi-f.lo), f.neg)
	case vector.Float:
		testFloats(hits, v.Floats, sel, f.flo, f.fhi, f.neg)
	default:
		testBools(hits, v.Bools, sel, f.want)
	}
	addLanes(cr.lanes, g, hits)
	// The summarize has grown the state to groups.
	for id := range groups {
		l := cr.lanes[id*denseLanes : (id+1)*denseLanes]
		if n := int64(l[0]) + int64(l[1]) + int64(l[2]) + int64(l[3]); n > 0 {
			cr.counter.AddCount(uint32(id), n)
		}
		clear(l)
	}
	return true
}

// laneArray holds denseLanes counters for each of up to laneGroupLimit
// groups. Its fixed size lets addLanes index it without bounds checks.
type laneArray [laneGroupLimit * denseLanes]uint32

// addLanes adds hits[k] to group g[k]'s lane k%4, four rows a step so
// each row's lane is a constant offset.
func addLanes(lanes *laneArray, g []uint32, hits []uint32) {
	hits = hits[:len(g)]
	const m = laneGroupLimit - 1
	k := 0
	for ; k+4 <= len(g); k += 4 {
		lanes[(g[k]&m)*denseLanes] += hits[k]
		lanes[(g[k+1]&m)*denseLanes+1] += hits[k+1]
		lanes[(g[k+2]&m)*denseLanes+2] += hits[k+2]
		lanes[(g[k+3]&m)*denseLanes+3] += hits[k+3]
	}
	for ; k < len(g); k++ {
		lanes[(g[k]&m)*denseLanes] += hits[k]
	}
}

func growHits(h []uint32, n int) []uint32 {
	if cap(h) < n {
		return make([]uint32, n)
	}
	return h
}

// testInts writes 1 for each row whose value lies in [lo, lo+span]
// (outside it when neg).
func testInts(hits []uint32, xs []int64, sel []int32, lo int64, span uint64, neg bool) {
	if sel == nil {
		xs = xs[:len(hits)]
		for k, x := range xs {
			hits[k] = uint32(b2i((uint64(x-lo) <= span) != neg))
		}
		return
	}
	sel = sel[:len(hits)]
	for k, r := range sel {
		hits[k] = uint32(b2i((uint64(xs[r]-lo) <= span) != neg))
	}
}

// testFloats writes 1 for each row whose value lies in [lo, hi] (outside
// it when neg; NaN lies in no range).
func testFloats(hits []uint32, xs []float64, sel []int32, lo, hi float64, neg bool) {
	if sel == nil {
		xs = xs[:len(hits)]
		for k, x := range xs {
			hits[k] = uint32(b2i(lo <= x)&b2i(x <= hi) ^ b2i(neg))
		}
		return
	}
	sel = sel[:len(hits)]
	for k, r := range sel {
		x := xs[r]
		hits[k] = uint32(b2i(lo <= x)&b2i(x <= hi) ^ b2i(neg))
	}
}

// testBools writes 1 for each row equal to want.
func testBools(hits []uint32, bs []bool, sel []int32, want bool) {
	if sel == nil {
		bs = bs[:len(hits)]
		for k, b := range bs {
			hits[k] = uint32(b2i(b == want))
		}
		return
	}
	sel = sel[:len(hits)]
	for k, r := range sel {
		hits[k] = uint32(b2i(bs[r] == want))
	}
}
