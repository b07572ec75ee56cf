package exec

import (
	"sync"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/vector"
)

// Dense counting. `summarize count() by status` assigned every row a group
// id through the key's dense window (groupTable.small), wrote the ids out,
// and counted them in a second pass, where rows of one popular value (most
// statuses are 200) each waited on the previous row's increment of the
// same counter. When every aggregation is count() and the one key is a
// long-like column without nulls, the rows are instead counted straight
// by their offset in the window, in four lanes (row k in lane k%4) so
// consecutive rows of one value do not queue on one counter; the few
// distinct values are then turned into groups once per batch.

// denseLanes is how many counters each key value has.
const denseLanes = 4

// denseMinRows is the smallest batch worth the lane array (1 MiB per
// worker, allocated on first use).
const denseMinRows = 4096

// denseCounter is one sink's lane counters over the group table's window.
type denseCounter struct {
	counts []uint32 // offset*denseLanes + lane
	// touched lists the offsets counted in this batch in order of first
	// appearance, each with a row holding the value (for the group's
	// key), listed again by every lane that counts it.
	touched []denseTouch
	gbuf    []uint32 // group ids of the rows counted the usual way
	adders  []agg.CountAdder
	off     bool // a batch spilled: count the usual way from now on
	key     [1]*vector.Vector
}

type denseTouch struct {
	off uint32
	row int32
}

// countOnly reports whether every aggregation is a count() whose state
// takes counts.
func countOnly(states []agg.State) []agg.CountAdder {
	var out []agg.CountAdder
	for _, s := range states {
		a, ok := s.(agg.CountAdder)
		if !ok {
			return nil
		}
		out = append(out, a)
	}
	return out
}

// denseCount counts batch b by the key column kv; it reports false,
// doing nothing, when the batch does not suit the lanes.
func (sk *aggSink) denseCount(b *Batch, kv *vector.Vector) bool {
	g := sk.Groups
	if len(sk.st.Keys) != 1 || g.ints == nil || kv.Const || kv.Valid != nil || !kv.Type.IsInt64Backed() ||
		b.Rows() < denseMinRows || g.nullID != 0 {
		return false
	}
	if sk.dense == nil {
		adders := countOnly(sk.states)
		if adders == nil {
			return false
		}
		sk.dense = &denseCounter{counts: getLanes(), adders: adders}
	}
	d := sk.dense
	if d.off {
		return false
	}
	d.key[0] = kv
	defer func() { d.key[0] = nil }() // do not pin the batch's column
	cols := d.key[:]
	ints := kv.Ints
	if !g.smallSet {
		// Let the table place its window around the first value.
		g.assignIntsFrom(cols, ints, 1, []int32{int32(row(b.Sel, 0))}, d.one(), 0)
	}
	if g.small == nil {
		return false
	}
	d.touched = d.touched[:0]
	k := d.countLanes(ints, b.Sel, b.N, g.smallLo)
	sk.foldDense(cols)
	if k < b.Rows() {
		// A value outside the window: the rest of the batch is counted
		// the usual way, after the groups of the rows before it so that
		// groups keep their order of first appearance, and so is every
		// later batch, whose values likely spread as far.
		d.off = true
		rest := d.restRows(b, k)
		ids := growU32(d.gbuf, len(rest))
		g.assign(cols, rest, b.N, ids)
		for _, s := range sk.states {
			s.Grow(g.N)
			s.Update(nil, rest, ids)
		}
		d.gbuf = ids
	}
	return true
}

// restRows returns the physical rows of b from live row k on.
func (d *denseCounter) restRows(b *Batch, k int) []int32 {
	if b.Sel != nil {
		return b.Sel[k:]
	}
	rest := make([]int32, 0, b.N-k)
	for i := k; i < b.N; i++ {
		rest = append(rest, int32(i))
	}
	return rest
}

// countLanes counts the live rows (all n when sel is nil) by offset from
// lo, listing each offset's first row per lane, up to the first row
// outside the window; it returns that row's live index, or the row count.
func (d *denseCounter) countLanes(ints []int64, sel []int32, n int, lo int64) int {
	counts := d.counts
	if sel == nil {
		for i, v := range ints[:n] {
			off := uint64(v - lo)
			if off >= smallKeyLimit {
				return i
			}
			j := off*denseLanes + uint64(i&(denseLanes-1))
			c := counts[j]
			if c == 0 {
				d.touched = append(d.touched, denseTouch{uint32(off), int32(i)})
			}
			counts[j] = c + 1
		}
		return n
	}
	for k, i := range sel {
		off := uint64(ints[i] - lo)
		if off >= smallKeyLimit {
			return k
		}
		j := off*denseLanes + uint64(k&(denseLanes-1))
		c := counts[j]
		if c == 0 {
			d.touched = append(d.touched, denseTouch{uint32(off), i})
		}
		counts[j] = c + 1
	}
	return len(sel)
}

// foldDense adds the batch's lane counts to the groups of their values,
// creating the groups first seen, and clears the counters it read.
func (sk *aggSink) foldDense(cols []*vector.Vector) {
	d, g := sk.dense, sk.Groups
	for _, t := range d.touched {
		base := int(t.off) * denseLanes
		lanes := d.counts[base : base+denseLanes]
		var n int64
		for l, c := range lanes {
			n += int64(c)
			lanes[l] = 0
		}
		if n == 0 {
			continue // listed again by another lane, already folded
		}
		id := g.small[t.off] - 1
		if id < 0 {
			out := d.one()
			g.assignIntsFrom(cols, cols[0].Ints, 1, []int32{t.row}, out, 0)
			id = int32(out[0])
		}
		for _, a := range d.adders {
			a.Grow(g.N)
			a.AddCount(uint32(id), n)
		}
	}
}

// one returns a one-entry group id buffer.
func (d *denseCounter) one() []uint32 {
	d.gbuf = growU32(d.gbuf, 1)
	return d.gbuf[:1]
}

// lanePool keeps lane arrays between queries: a megabyte zeroed per worker
// per query costs more than the counting of a small table. Arrays go back
// zeroed, as foldDense leaves them.
var lanePool = sync.Pool{New: func() any {
	s := make([]uint32, smallKeyLimit*denseLanes)
	return &s
}}

func getLanes() []uint32 { return *lanePool.Get().(*[]uint32) }

// release returns the sink's lane array, once its counts are folded.
func (d *denseCounter) release() {
	if d != nil && d.counts != nil {
		s := d.counts
		lanePool.Put(&s)
		d.counts = nil
	}
}
