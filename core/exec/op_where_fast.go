package exec

import (
	"slices"
	"sync"

	"github.com/aplite/aplite/vector"
)

// fastFilter is a where predicate of the form `column op constant` over an
// integer-like or real column, evaluated by the generated selection
// kernels straight into the selection vector: no intermediate bool column
// and no allocation beyond the selection itself.
type fastFilter struct {
	col int
	// Exactly one kernel is set, picked for the operator at plan time.
	selInt   func(col []int64, k int64, sel, out []int32) []int32
	selFloat func(col []float64, k float64, sel, out []int32) []int32
	ki       int64
	kf       float64
	// op is the comparison with the column on the left, and isInt tells
	// which kernel is set: the fused conditional aggregations
	// (op_summarize_cond.go) run the predicate as a range of their own.
	op    string
	isInt bool
}

// Apply narrows b's selection; ok is false when the column has nulls or is
// not in the planned representation, and the caller falls back.
//
// The kernels write every candidate row before deciding to keep it, so
// they need room for the whole batch; a selection of that size made per
// Batch (256 KiB per 64Ki-row morsel, zeroed) was most of what
// `where status == 500` allocated. They write into the batch's scratch
// when it has one; else into a pooled buffer, and the returned selection
// is sized by the rows kept (keptSel).
func (f *fastFilter) Apply(b *Batch) (sel []int32, ok bool, err error) {
	v, err := b.Col(f.col)
	if err != nil {
		return nil, false, err
	}
	if v.Const || v.Valid != nil {
		return nil, false, nil
	}
	if (f.selInt != nil && v.Ints == nil) || (f.selInt == nil && v.Floats == nil) {
		return nil, false, nil
	}
	if b.scratch != nil {
		// The selection lives as long as the batch: write it straight
		// into a buffer the batch's scratch lends.
		return f.Run(b, v, b.scratch.sels.take(b.Rows())[:0]), true, nil
	}
	scratch := selScratch.Get().(*[]int32)
	return keptSel(scratch, f.Run(b, v, (*scratch)[:0])), true, nil
}

// Run appends to out the rows of b the predicate keeps over column v.
func (f *fastFilter) Run(b *Batch, v *vector.Vector, out []int32) []int32 {
	if f.selInt != nil {
		return f.selInt(v.Ints[:b.N], f.ki, b.Sel, out)
	}
	return f.selFloat(v.Floats[:b.N], f.kf, b.Sel, out)
}

// selScratch holds the buffers the selection kernels write into.
var selScratch = sync.Pool{New: func() any { return new([]int32) }}

// keptSel returns the rows a kernel kept in *scratch as a selection the
// Batch owns, and returns the scratch buffer to the pool unless it was
// handed over. When most of the buffer was kept it is handed over (a copy
// would cost more than a new buffer for the next batch); otherwise the
// kept rows are copied into a slice of their own size.
func keptSel(scratch *[]int32, kept []int32) []int32 {
	if len(kept)*2 > cap(kept) {
		return kept
	}
	out := slices.Clone(kept)
	*scratch = kept[:0]
	selScratch.Put(scratch)
	return out
}
