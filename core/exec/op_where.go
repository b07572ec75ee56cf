package exec

import (
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// whereStage keeps the rows whose predicate is true (null and false drop
// the row). It narrows the batch's selection vector instead of copying.
type whereStage struct {
	In   Schema
	Pred *Expr
	fast *fastFilter
	// Push is what a scan directly below may absorb, worked out from the
	// predicate's plan node when planning, so the stage keeps no AST.
	Push scanPush
}

// scanPush is what a where over a scan hands the scan: _time bounds that
// skip whole parts by their time range (exact when they are the whole
// predicate), tests that skip parts by column statistics, and term-filter
// tests that skip parts or granules of their rows.
type scanPush struct {
	lo, hi   *int64
	exact    bool
	Prune    []func(store.Part) bool
	Granules []func(store.Part) []bool
}

// newWhereStage plans what a scan below may skip for pred over in, and
// its selection kernel, from the predicate's plan node (push.go).
func newWhereStage(in Schema, pred *Expr) *whereStage {
	return &whereStage{In: in, Pred: pred, fast: fastFilterOf(in, pred.Node), Push: pushOf(in, pred.Node)}
}

// Out implements Stage.
func (w *whereStage) Out() Schema { return w.In }

func (w *whereStage) keepsNothing() {}

// Apply implements streamStage.
func (w *whereStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	if w.fast != nil {
		sel, ok, err := w.fast.Apply(b)
		if err != nil {
			return nil, err
		}
		if ok {
			if len(sel) == 0 {
				return nil, nil
			}
			if b.Sel == nil && len(sel) == b.N {
				return b, nil
			}
			b.Sel = sel
			return b, nil
		}
	}
	v, err := w.Pred.Run(x, b)
	if err != nil {
		return nil, err
	}
	sel := filterSel(v, b)
	if len(sel) == 0 {
		return nil, nil
	}
	if len(sel) == b.N && b.Sel == nil {
		return b, nil
	}
	b.Sel = sel
	return b, nil
}

// filterSel returns the live rows of b where v is true.
func filterSel(v *vector.Vector, b *Batch) []int32 {
	if v.Type != vector.Bool {
		v = castVectorSel(v, vector.Bool, b.Sel)
	}
	if v.Type == vector.Null || v.Const {
		if v.Type == vector.Null || v.IsNull(0) || !v.Bool(0) {
			return nil
		}
		return b.LiveRows()
	}
	bools, valid := v.Bools, v.Valid
	if b.Sel != nil {
		out := b.Sel[:0:0]
		for _, i := range b.Sel {
			if bools[i] && (valid == nil || valid.Get(int(i))) {
				out = append(out, i)
			}
		}
		return out
	}
	out := make([]int32, 0, b.N/4+8)
	if valid == nil {
		for i, t := range bools[:b.N] {
			if t {
				out = append(out, int32(i))
			}
		}
		return out
	}
	for i, t := range bools[:b.N] {
		if t && valid.Get(i) {
			out = append(out, int32(i))
		}
	}
	return out
}
