package exec

import (
	"math"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/vector"
)

// Fused conditional aggregations. countif(status >= 500) evaluated as an
// expression builds a bool column per batch, which the aggregation then
// reads back to pick its rows. When the predicate is a column against a
// constant, or a bool column, a kernel instead writes the rows where it
// holds, with their groups, straight into the buffers the aggregation
// reads: one pass, no bool column, no branch per row.

// condFilter is a predicate the summarize evaluates itself: for long-like
// and real columns, value in [lo, hi] (negated for !=); for bool columns,
// value == want. A null row fails every test but !=, where it passes
// (applyCompareNulls); the kernel leaves a != over nulls to the expression.
type condFilter struct {
	col    int
	kind   vector.Type // Int (any int64-backed type), Float or Bool
	lo, hi int64
	flo    float64
	fhi    float64
	neg    bool
	empty  bool // the range is empty (x < minimum): no row passes
	want   bool
	// nullTrue: the predicate is a != comparison, true for a null row.
	nullTrue bool
}

// intRange is the closed range of v op k.
func intRange(op string, k int64) (lo, hi int64, empty bool) {
	switch op {
	case "<":
		return math.MinInt64, k - 1, k == math.MinInt64
	case "<=":
		return math.MinInt64, k, false
	case ">":
		return k + 1, math.MaxInt64, k == math.MaxInt64
	case ">=":
		return k, math.MaxInt64, false
	}
	return k, k, false // == and !=
}

// floatRange is the closed range of v op k; NaN is in no range.
func floatRange(op string, k float64) (lo, hi float64, empty bool) {
	switch op {
	case "<":
		return math.Inf(-1), math.Nextafter(k, math.Inf(-1)), math.IsInf(k, -1)
	case "<=":
		return math.Inf(-1), k, false
	case ">":
		return math.Nextafter(k, math.Inf(1)), math.Inf(1), math.IsInf(k, 1)
	case ">=":
		return k, math.Inf(1), false
	}
	return k, k, false
}

// selectTrue appends to outSel and outGrp the physical rows of v where the
// predicate holds and their groups; row k of the update is physical row
// sel[k] (k when sel is nil) in group groups[k]. ok is false when v is not
// in the planned representation, and the caller evaluates the predicate.
func (f *condFilter) selectTrue(v *vector.Vector, sel []int32, groups []uint32, outSel []int32, outGrp []uint32) ([]int32, []uint32, bool) {
	if v.Const || v.Type == vector.Null || (f.kind == vector.Int) != v.Type.IsInt64Backed() ||
		(f.kind != vector.Int && v.Type != f.kind) || (f.nullTrue && v.Valid != nil) {
		return outSel, outGrp, false
	}
	if f.empty {
		return outSel, outGrp, true
	}
	m := len(groups)
	base := len(outSel)
	outSel, outGrp = growTo(outSel, base+m), growU32(outGrp, base+m)
	os, og := outSel[base:base+m], outGrp[base:base+m]
	var n int
	switch {
	case f.kind == vector.Int && sel == nil:
		n = selIntRange(v.Ints[:m], f.lo, uint64(f.hi-f.lo), f.neg, groups, os, og)
	case f.kind == vector.Int:
		lo, span, neg, ints := f.lo, uint64(f.hi-f.lo), f.neg, v.Ints
		for k, g := range groups {
			r := sel[k]
			os[n], og[n] = r, g
			n += b2i((uint64(ints[r]-lo) <= span) != neg)
		}
	case f.kind == vector.Float:
		lo, hi, neg, fs := f.flo, f.fhi, f.neg, v.Floats
		for k, g := range groups {
			r := k
			if sel != nil {
				r = int(sel[k])
			}
			x := fs[r]
			os[n], og[n] = int32(r), g
			n += b2i(lo <= x)&b2i(x <= hi) ^ b2i(neg)
		}
	case sel == nil:
		n = selBoolEq(v.Bools[:m], f.want, groups, os, og)
	default:
		want, bs := f.want, v.Bools
		for k, g := range groups {
			r := sel[k]
			os[n], og[n] = r, g
			n += b2i(bs[r] == want)
		}
	}
	if v.Valid != nil {
		// Null rows never pass; drop those the value test let through.
		w := 0
		for i, r := range os[:n] {
			if v.Valid.Get(int(r)) {
				os[w], og[w] = r, og[i]
				w++
			}
		}
		n = w
	}
	return outSel[:base+n], outGrp[:base+n], true
}

// selIntRange is selectTrue's loop over dense longs: position k passes
// when vals[k] is in [lo, lo+span] (outside when neg). Every position is
// written and the count advances only on a pass, so no branch depends on
// the data.
func selIntRange(vals []int64, lo int64, span uint64, neg bool, groups []uint32, os []int32, og []uint32) int {
	n := 0
	groups = groups[:len(vals)]
	os, og = os[:len(vals)], og[:len(vals)]
	for k, v := range vals {
		os[n] = int32(k)
		og[n] = groups[k]
		n += b2i((uint64(v-lo) <= span) != neg)
	}
	return n
}

// selBoolEq is selectTrue's loop over dense bools equal to want.
func selBoolEq(vals []bool, want bool, groups []uint32, os []int32, og []uint32) int {
	n := 0
	groups = groups[:len(vals)]
	os, og = os[:len(vals)], og[:len(vals)]
	for k, v := range vals {
		os[n] = int32(k)
		og[n] = groups[k]
		n += b2i(v == want)
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func growTo(s []int32, n int) []int32 {
	if cap(s) < n {
		s = append(s[:cap(s)], make([]int32, n-cap(s))...)
	}
	return s[:n]
}

func growU32(s []uint32, n int) []uint32 {
	if cap(s) < n {
		s = append(s[:cap(s)], make([]uint32, n-cap(s))...)
	}
	return s[:n]
}

// condRun is one sink's fused conditional aggregation: its state, filter
// and buffers, reused across batches.
type condRun struct {
	state agg.Conditional
	f     *condFilter
	pred  int
	rest  []*vector.Vector
	sel   []int32
	grp   []uint32
	// counter, for countif, takes whole counts from lanes (countLanes).
	counter agg.CountAdder
	lanes   *laneArray
	hits    []uint32
}

// newCondRun returns the fused run of aggregation a with state st, or nil
// when a's predicate has no kernel.
func newCondRun(a *aggCall, st agg.State) *condRun {
	c, ok := st.(agg.Conditional)
	if !ok {
		return nil
	}
	p := c.PredicateArg()
	if p < 0 || p >= len(a.Conds) || a.Conds[p] == nil {
		return nil
	}
	return &condRun{state: c, f: a.Conds[p], pred: p, counter: c.Counter()}
}

// update folds batch b (groups g, ids below groups) into the state; done is false when the
// predicate column is not in the kernel's representation.
func (cr *condRun) update(x *Ctx, b *Batch, a *aggCall, g []uint32, groups int) (done bool, err error) {
	v, err := b.Col(cr.f.col)
	if err != nil {
		return false, err
	}
	if cr.counter != nil && cr.countLanes(v, b.Sel, g, groups) {
		return true, nil
	}
	var ok bool
	cr.sel, cr.grp, ok = cr.f.selectTrue(v, b.Sel, g, cr.sel[:0], cr.grp[:0])
	if !ok {
		return false, nil
	}
	cr.rest = cr.rest[:0]
	for j, e := range a.Args {
		if j == cr.pred {
			continue
		}
		v, err := e.Run(x, b)
		if err != nil {
			return false, err
		}
		cr.rest = append(cr.rest, v)
	}
	cr.state.UpdateTrue(cr.rest, cr.sel, cr.grp)
	return true, nil
}
