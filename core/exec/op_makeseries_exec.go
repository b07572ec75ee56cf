package exec

import (
	"fmt"
	"math"
	"time"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/vector"
)

// MaxSeriesBins bounds the length of a series, so a tiny step over a wide
// range fails with a clear message instead of exhausting memory.
const MaxSeriesBins = 1 << 20

// seriesSink is one worker's partial make-series: aggregation states
// keyed by (by-keys..., bin).
type seriesSink struct {
	st     *makeSeriesStage
	groups *groupTable
	states []agg.State
	gbuf   []uint32
	last   int
}

// NewSink implements blockStage.
func (st *makeSeriesStage) NewSink(x *Ctx) (sink, error) {
	types := append(append([]vector.Type(nil), st.KeyTypes...), vector.Int)
	sk := &seriesSink{st: st, groups: newGroupTable(types)}
	for _, a := range st.Aggs {
		s, err := a.Spec.New(a.Ctx, a.Types, a.Consts)
		if err != nil {
			return nil, CallErrAt(a.Span, a.Fname, err)
		}
		sk.states = append(sk.states, s)
	}
	return sk, nil
}

// Full implements sink.
func (sk *seriesSink) Full() bool { return false }

func (sk *seriesSink) consume(x *Ctx, b *Batch) error {
	st := sk.st
	av, err := st.Axis.Run(x, b)
	if err != nil {
		return err
	}
	bins, sel := st.binRows(av, b)
	if len(sel) == 0 {
		return nil
	}
	keys := make([]*vector.Vector, 0, len(st.Keys)+1)
	for _, k := range st.Keys {
		v, err := k.Run(x, b)
		if err != nil {
			return err
		}
		keys = append(keys, v)
	}
	keys = append(keys, bins)
	if cap(sk.gbuf) < len(sel) {
		sk.gbuf = make([]uint32, len(sel))
	}
	g := sk.gbuf[:len(sel)]
	sk.groups.assign(keys, sel, b.N, g)
	if n := sk.groups.N; n > sk.last {
		if err := x.Budget.Charge(int64(n-sk.last) * int64(64+32*len(sk.states))); err != nil {
			return err
		}
		sk.last = n
	}
	for i, a := range st.Aggs {
		args := make([]*vector.Vector, len(a.Args))
		for j, e := range a.Args {
			if args[j], err = e.Run(x, b); err != nil {
				return err
			}
		}
		sk.states[i].Grow(sk.groups.N)
		sk.states[i].Update(args, sel, g)
	}
	return nil
}

// binRows computes the bin of every live row with an axis value inside
// [from, to) and returns the bins (a column of b's physical length) and
// those rows. Without from, bins are counted from the axis origin.
func (st *makeSeriesStage) binRows(av *vector.Vector, b *Batch) (*vector.Vector, []int32) {
	bins := &vector.Vector{Type: vector.Int, Len: b.N, Ints: make([]int64, b.N)}
	var sel []int32
	for _, r := range b.LiveRows() {
		i := int(r)
		if av.IsNull(i) {
			continue
		}
		k, ok := st.bin(av, i)
		if !ok {
			continue
		}
		bins.Ints[i] = k
		sel = append(sel, r)
	}
	return bins, sel
}

// bin returns the bin of row i, false when it is outside [from, to).
func (st *makeSeriesStage) bin(av *vector.Vector, i int) (int64, bool) {
	if st.IntAxis {
		v := av.Int(i)
		if (st.Ito != nil && v >= *st.Ito) || (st.Ifrom != nil && v < *st.Ifrom) {
			return 0, false
		}
		if st.Ifrom != nil {
			v -= *st.Ifrom
		}
		return floorDiv(v, st.Step), true
	}
	var v float64
	if av.Type == vector.Float {
		v = av.Float(i)
	} else {
		v = float64(av.Int(i))
	}
	if math.IsNaN(v) || (st.To != nil && v >= *st.To) || (st.From != nil && v < *st.From) {
		return 0, false
	}
	if st.From != nil {
		v -= *st.From
	}
	return int64(math.Floor(v / st.Fstep)), true
}

// floorDiv is integer division rounding toward minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Finish implements blockStage.
func (st *makeSeriesStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	base := sinks[0].(*seriesSink)
	for _, o := range sinks[1:] {
		other := o.(*seriesSink)
		mergeGroupStates(base.groups, base.states, other.groups, other.states)
	}
	n := base.groups.N
	nk := len(st.Keys)
	if n == 0 {
		return emptyBatch(st.Sch), nil
	}
	binCol := base.groups.keys[nk]
	lo, hi := st.binRange(binCol, n)
	if hi-lo > MaxSeriesBins {
		return nil, fmt.Errorf("make-series would have %d bins per series (at most %d): use a larger step or a narrower range", hi-lo, MaxSeriesBins)
	}
	series := newGroupTable(st.KeyTypes)
	sid := make([]uint32, n)
	series.assign(base.groups.keys[:nk], nil, n, sid)
	ns := max(series.N, 1)
	if err := x.Budget.Charge(int64(ns) * (hi - lo) * int64(len(st.Aggs)+1) * 24); err != nil {
		return nil, err
	}
	vecs := make([]*vector.Vector, 0, len(st.Sch))
	vecs = append(vecs, series.keys...)
	for i, a := range st.Aggs {
		base.states[i].Grow(n)
		res := base.states[i].Result(n)[0]
		vecs = append(vecs, st.seriesColumn(res, a, st.Defaults[i], sid, binCol, ns, lo, hi))
	}
	vecs = append(vecs, st.axisColumn(ns, lo, hi))
	return NewBatch(vecs, ns), nil
}

// binRange returns the bins [lo, hi) every series spans.
func (st *makeSeriesStage) binRange(binCol *vector.Vector, n int) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	for g := 0; g < n; g++ {
		k := binCol.Int(g)
		lo, hi = min(lo, k), max(hi, k+1)
	}
	if st.Ifrom != nil || st.From != nil {
		lo = 0
	}
	switch {
	case st.Ito != nil && st.Ifrom != nil:
		hi = ceilDiv(*st.Ito-*st.Ifrom, st.Step)
	case st.Ito != nil:
		hi = ceilDiv(*st.Ito, st.Step)
	case st.To != nil:
		origin := 0.0
		if st.From != nil {
			origin = *st.From
		}
		hi = int64(math.Ceil((*st.To - origin) / st.Fstep))
	}
	return lo, max(hi, lo)
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// seriesColumn spreads one aggregation's per-(group, bin) results into
// one array per series, defaults in the empty bins.
func (st *makeSeriesStage) seriesColumn(res *vector.Vector, a *aggCall, def any, sid []uint32, binCol *vector.Vector, ns int, lo, hi int64) *vector.Vector {
	arrays := make([][]any, ns)
	for s := range arrays {
		arr := make([]any, hi-lo)
		for k := range arr {
			arr[k] = def
		}
		arrays[s] = arr
	}
	for g := range sid {
		k := binCol.Int(g)
		if k < lo || k >= hi {
			continue
		}
		v := res.Value(g)
		if a.Outs[0] != vector.Dynamic && res.Type != a.Outs[0] {
			v = ConvertValue(v, a.Outs[0])
		}
		arrays[sid[g]][k-lo] = v
	}
	out := vector.New(vector.Dynamic, ns)
	for _, arr := range arrays {
		out.AppendDyn(arr)
	}
	return out
}

// axisColumn is the array of bin starts, the same for every series.
func (st *makeSeriesStage) axisColumn(ns int, lo, hi int64) *vector.Vector {
	arr := make([]any, 0, hi-lo)
	for k := lo; k < hi; k++ {
		arr = append(arr, st.binStart(k))
	}
	out := vector.New(vector.Dynamic, ns)
	for s := 0; s < ns; s++ {
		out.AppendDyn(arr)
	}
	return out
}

// binStart is the axis value where bin k starts.
func (st *makeSeriesStage) binStart(k int64) any {
	if !st.IntAxis {
		origin := 0.0
		if st.From != nil {
			origin = *st.From
		}
		return origin + float64(k)*st.Fstep
	}
	v := k * st.Step
	if st.Ifrom != nil {
		v += *st.Ifrom
	}
	switch st.AxisType {
	case vector.DateTime:
		return time.Unix(0, v).UTC()
	case vector.TimeSpan:
		return time.Duration(v)
	}
	return v
}
