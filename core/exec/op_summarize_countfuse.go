package exec

import (
	"slices"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/vector"
)

// Fused counting by a dictionary key. `summarize countif(status >= 500),
// countif(is_tls == false) by server_datacenter` gave every row a group id
// (written out), then each countif tested its column into a buffer of 0/1
// and added that to its group's lanes: per row, five passes over row
// buffers and two read-modify-writes of counters. When the one key is a
// dictionary-encoded string without nulls and every aggregation is count()
// or a countif whose predicate has a kernel, a row is instead reduced to
// one small number, its dictionary code with a bit per predicate that
// holds, built in a block of rows that stays in L1, and that number is
// counted once, in four lanes. Once per batch the counts are folded into
// each code's group and each aggregation's total: rows never get group
// ids, and the group table is asked only about codes it has not seen.

// fuseBlock is how many rows one pass of a predicate covers.
const fuseBlock = 1024

// fuseCells bounds the numbers a row is reduced to: the dictionary's size
// times 2^predicates.
const fuseCells = 1 << 10

// fuseMaxPreds bounds the countif predicates of a fused summarize.
const fuseMaxPreds = 4

// fuseArray holds denseLanes counters per cell; its fixed size lets the
// counting loop index it without bounds checks.
type fuseArray [fuseCells * denseLanes]uint32

// fusedCount is one sink's fused counting state.
type fusedCount struct {
	// masks holds per aggregation the predicate bits its rows need (0 for
	// count()); adders the state that takes its counts.
	masks   []uint32
	adders  []agg.CountAdder
	filters []*condFilter // predicate bit p is filters[p]
	pcols   []*vector.Vector
	// smalls and tables are, per predicate over a long column with a
	// one-byte side, the side and each byte's bit.
	smalls [fuseMaxPreds][]uint8
	tables [fuseMaxPreds][vector.SmallLimit]uint32
	hist   *fuseArray
	keys   [fuseBlock]uint32
	tots   []int64 // code<<preds | bits → rows of the batch
	// memo maps a dictionary code to its group id + 1, for memoDict.
	memo     []int32
	memoDict *string
	firsts   []codeRow
	one      []uint32
}

// codeRow is a code's first row in a batch.
type codeRow struct {
	code uint32
	row  int32
}

// newFusedCount returns the fused counting of a summarize whose every
// aggregation is count() or a countif with a predicate kernel, by one
// string key; nil otherwise.
func newFusedCount(s *summarizeStage, states []agg.State, conds []*condRun) *fusedCount {
	if len(s.Keys) != 1 || s.Keys[0].Typ != vector.String {
		return nil
	}
	fc := &fusedCount{}
	for i, a := range s.Aggs {
		switch cr := conds[i]; {
		case cr != nil && cr.counter != nil && len(a.Args) == 1:
			if len(fc.filters) == fuseMaxPreds {
				return nil
			}
			fc.masks = append(fc.masks, 1<<len(fc.filters))
			fc.adders = append(fc.adders, cr.counter)
			fc.filters = append(fc.filters, cr.f)
		case a.Spec.Name == "count" && len(a.Args) == 0:
			c, ok := states[i].(agg.CountAdder)
			if !ok {
				return nil
			}
			fc.masks = append(fc.masks, 0)
			fc.adders = append(fc.adders, c)
		default:
			return nil
		}
	}
	return fc
}

// suits reports whether the filter's kernel reads v: the representation
// selectTrue takes, and a != over nulls (true for a null row) excluded.
func (f *condFilter) suits(v *vector.Vector) bool {
	return !v.Const && v.Type != vector.Null && (f.kind == vector.Int) == v.Type.IsInt64Backed() &&
		(f.kind == vector.Int || v.Type == f.kind) && !(f.nullTrue && v.Valid != nil)
}

// countFused counts batch b by the key column kv; it reports false, doing
// nothing, when the batch does not suit the fused kernel.
func (sk *aggSink) countFused(b *Batch, kv *vector.Vector) (bool, error) {
	fc := sk.fuse
	preds := uint(len(fc.filters))
	if kv.Type != vector.String || kv.Codes == nil || kv.Const || kv.Valid != nil || len(kv.Dict) == 0 ||
		len(kv.Dict)<<preds > fuseCells {
		return false, nil
	}
	fc.pcols = fc.pcols[:0]
	for _, f := range fc.filters {
		v, err := b.Col(f.col)
		if err != nil {
			return false, err
		}
		if !f.suits(v) {
			return false, nil
		}
		fc.pcols = append(fc.pcols, v)
	}
	if fc.hist == nil {
		fc.hist = new(fuseArray)
	}
	fc.count(kv, b.Sel, b.Rows(), preds)
	sk.foldFused(b, kv, preds)
	return true, nil
}

// count counts the live rows (physical row sel[k], or k) into the cells
// of their codes and predicate bits, a block at a time. The key's codes
// and a long predicate's column are read from their one-byte sides when
// they have them (vector/small.go): a long predicate is then a table of
// its value's bit per byte.
func (fc *fusedCount) count(kv *vector.Vector, sel []int32, rows int, preds uint) {
	codes8, _ := kv.Small()
	for p, f := range fc.filters {
		fc.smalls[p] = nil
		if f.kind != vector.Int || f.empty {
			continue
		}
		if small, vals := fc.pcols[p].Small(); small != nil {
			fc.smalls[p] = small
			t := &fc.tables[p]
			clear(t[:])
			bit := uint32(1) << p
			for c, x := range vals {
				t[c] = uint32(b2i((uint64(x-f.lo) <= uint64(f.hi-f.lo)) != f.neg)) * bit
			}
		}
	}
	for start := 0; start < rows; start += fuseBlock {
		n := min(fuseBlock, rows-start)
		var s []int32
		if sel != nil {
			s = sel[start : start+n]
		}
		keys := fc.keys[:n]
		if codes8 != nil {
			fuseCodes8(keys, codes8, s, start, preds)
		} else {
			fuseCodes(keys, kv.Codes, s, start, preds)
		}
		for p, f := range fc.filters {
			switch {
			case f.empty:
			case fc.smalls[p] != nil:
				orTable(keys, fc.smalls[p], s, start, &fc.tables[p])
				maskNulls(keys, fc.pcols[p], s, start, uint32(1)<<p)
			default:
				fuseTest(keys, f, fc.pcols[p], s, start, uint32(1)<<p)
			}
		}
		countCells(fc.hist, keys)
	}
}

// fuseCodes8 is fuseCodes over one-byte codes.
func fuseCodes8(keys []uint32, codes []uint8, sel []int32, start int, preds uint) {
	if sel == nil {
		for j, c := range codes[start : start+len(keys)] {
			keys[j] = uint32(c) << preds
		}
		return
	}
	sel = sel[:len(keys)]
	for j, r := range sel {
		keys[j] = uint32(codes[r]) << preds
	}
}

// orTable ors into each row's key its byte's entry of t.
func orTable(keys []uint32, small []uint8, sel []int32, start int, t *[vector.SmallLimit]uint32) {
	if sel == nil {
		for j, c := range small[start : start+len(keys)] {
			keys[j] |= t[c]
		}
		return
	}
	sel = sel[:len(keys)]
	for j, r := range sel {
		keys[j] |= t[small[r]]
	}
}

// fuseCodes writes each row's dictionary code shifted past the predicate
// bits; row j of the block is physical row sel[j], or start+j.
func fuseCodes(keys []uint32, codes []uint32, sel []int32, start int, preds uint) {
	if sel == nil {
		for j, c := range codes[start : start+len(keys)] {
			keys[j] = c << preds
		}
		return
	}
	sel = sel[:len(keys)]
	for j, r := range sel {
		keys[j] = codes[r] << preds
	}
}

// fuseTest sets bit in the key of each row of the block where f holds;
// null rows never pass (suits leaves != over nulls out).
func fuseTest(keys []uint32, f *condFilter, v *vector.Vector, sel []int32, start int, bit uint32) {
	switch f.kind {
	case vector.Int:
		orInts(keys, v.Ints, sel, start, f.lo, uint64(f.hi-f.lo), f.neg, bit)
	case vector.Float:
		orFloats(keys, v.Floats, sel, start, f.flo, f.fhi, f.neg, bit)
	default:
		orBools(keys, v.Bools, sel, start, f.want, bit)
	}
	maskNulls(keys, v, sel, start, bit)
}

// maskNulls clears bit in the keys of the block's null rows of v.
func maskNulls(keys []uint32, v *vector.Vector, sel []int32, start int, bit uint32) {
	if v.Valid == nil {
		return
	}
	for j := range keys {
		r := start + j
		if sel != nil {
			r = int(sel[j])
		}
		if !v.Valid.Get(r) {
			keys[j] &^= bit
		}
	}
}

// orInts sets bit for the rows whose value lies in [lo, lo+span] (outside
// it when neg).
func orInts(keys []uint32, xs []int64, sel []int32, start int, lo int64, span uint64, neg bool, bit uint32) {
	if sel == nil {
		xs = xs[start : start+len(keys)]
		for j, x := range xs {
			keys[j] |= uint32(b2i((uint64(x-lo) <= span) != neg)) * bit
		}
		return
	}
	sel = sel[:len(keys)]
	for j, r := range sel {
		keys[j] |= uint32(b2i((uint64(xs[r]-lo) <= span) != neg)) * bit
	}
}

// orFloats sets bit for the rows whose value lies in [lo, hi] (outside it
// when neg; NaN lies in no range).
func orFloats(keys []uint32, xs []float64, sel []int32, start int, lo, hi float64, neg bool, bit uint32) {
	if sel == nil {
		xs = xs[start : start+len(keys)]
		for j, x := range xs {
			keys[j] |= uint32(b2i(lo <= x)&b2i(x <= hi)^b2i(neg)) * bit
		}
		return
	}
	sel = sel[:len(keys)]
	for j, r := range sel {
		x := xs[r]
		keys[j] |= uint32(b2i(lo <= x)&b2i(x <= hi)^b2i(neg)) * bit
	}
}

// orBools sets bit for the rows equal to want.
func orBools(keys []uint32, bs []bool, sel []int32, start int, want bool, bit uint32) {
	if sel == nil {
		bs = bs[start : start+len(keys)]
		for j, x := range bs {
			keys[j] |= uint32(b2i(x == want)) * bit
		}
		return
	}
	sel = sel[:len(keys)]
	for j, r := range sel {
		keys[j] |= uint32(b2i(bs[r] == want)) * bit
	}
}

// countCells counts each key in lane j%4 of its cell, four rows a step so
// each row's lane is a constant offset and consecutive rows of one cell do
// not wait on each other's increment.
func countCells(h *fuseArray, keys []uint32) {
	const m = fuseCells - 1
	j := 0
	for ; j+4 <= len(keys); j += 4 {
		h[(keys[j]&m)*denseLanes]++
		h[(keys[j+1]&m)*denseLanes+1]++
		h[(keys[j+2]&m)*denseLanes+2]++
		h[(keys[j+3]&m)*denseLanes+3]++
	}
	for ; j < len(keys); j++ {
		h[(keys[j]&m)*denseLanes]++
	}
}

// foldFused adds the batch's cell counts to the groups of their codes,
// creating the groups first seen in order of their first row, and clears
// the counters.
func (sk *aggSink) foldFused(b *Batch, kv *vector.Vector, preds uint) {
	fc := sk.fuse
	cells := len(kv.Dict) << preds
	fc.tots = slices.Grow(fc.tots[:0], cells)[:cells]
	for c := range cells {
		l := fc.hist[c*denseLanes : (c+1)*denseLanes]
		fc.tots[c] = int64(l[0]) + int64(l[1]) + int64(l[2]) + int64(l[3])
		clear(l)
	}
	if fc.memoDict != &kv.Dict[0] || len(fc.memo) != len(kv.Dict) {
		fc.memo = make([]int32, len(kv.Dict))
		fc.memoDict = &kv.Dict[0]
	}
	combos := 1 << preds
	fc.firsts = fc.firsts[:0]
	for c := range kv.Dict {
		if fc.memo[c] == 0 && slices.ContainsFunc(fc.tots[c*combos:(c+1)*combos], func(n int64) bool { return n > 0 }) {
			fc.firsts = append(fc.firsts, codeRow{code: uint32(c), row: -1})
		}
	}
	if len(fc.firsts) > 0 {
		sk.newCodeGroups(b, kv)
	}
	g := sk.Groups
	for _, s := range sk.states {
		s.Grow(g.N)
	}
	for c, gid := range fc.memo {
		if gid == 0 {
			continue
		}
		tots := fc.tots[c*combos : (c+1)*combos]
		for i, a := range fc.adders {
			mask := int(fc.masks[i])
			var n int64
			for bits, t := range tots {
				if bits&mask == mask {
					n += t
				}
			}
			if n > 0 {
				a.AddCount(uint32(gid-1), n)
			}
		}
	}
}

// newCodeGroups gives the codes listed in fc.firsts their groups, in the
// order of their first rows in b, as the group table would have met them.
func (sk *aggSink) newCodeGroups(b *Batch, kv *vector.Vector) {
	fc := sk.fuse
	missing := len(fc.firsts)
	for k := 0; k < b.Rows() && missing > 0; k++ {
		r := int32(row(b.Sel, k))
		for i := range fc.firsts {
			if f := &fc.firsts[i]; f.row < 0 && f.code == kv.Codes[r] {
				f.row = r
				missing--
			}
		}
	}
	slices.SortFunc(fc.firsts, func(x, y codeRow) int { return int(x.row) - int(y.row) })
	cols := []*vector.Vector{kv}
	fc.one = growU32(fc.one, 1)
	for _, f := range fc.firsts {
		sk.Groups.assign(cols, []int32{f.row}, b.N, fc.one[:1])
		fc.memo[f.code] = int32(fc.one[0]) + 1
	}
}
