package core

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
	if len(cr.lanes) < groups*denseLanes {
		cr.lanes = make([]uint32, laneGroupLimit*denseLanes)
	}
	lanes := cr.lanes
	switch f.kind {
	case vector.Int:
		lo, span, neg, ints := f.lo, uint64(f.hi-f.lo), f.neg, v.Ints
		for k, id := range g {
			r := k
			if sel != nil {
				r = int(sel[k])
			}
			lanes[int(id)*denseLanes+k&(denseLanes-1)] += uint32(b2i((uint64(ints[r]-lo) <= span) != neg))
		}
	case vector.Float:
		lo, hi, neg, fs := f.flo, f.fhi, f.neg, v.Floats
		for k, id := range g {
			r := k
			if sel != nil {
				r = int(sel[k])
			}
			x := fs[r]
			lanes[int(id)*denseLanes+k&(denseLanes-1)] += uint32(b2i(lo <= x)&b2i(x <= hi) ^ b2i(neg))
		}
	default:
		want, bs := f.want, v.Bools
		for k, id := range g {
			r := k
			if sel != nil {
				r = int(sel[k])
			}
			lanes[int(id)*denseLanes+k&(denseLanes-1)] += uint32(b2i(bs[r] == want))
		}
	}
	// The summarize has grown the state to groups.
	for id := range groups {
		l := lanes[id*denseLanes : (id+1)*denseLanes]
		if n := int64(l[0]) + int64(l[1]) + int64(l[2]) + int64(l[3]); n > 0 {
			cr.counter.AddCount(uint32(id), n)
		}
		clear(l)
	}
	return true
}
