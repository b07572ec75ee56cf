package core

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

// apply narrows b's selection; ok is false when the column has nulls or is
// not in the planned representation, and the caller falls back.
func (f *fastFilter) apply(b *batch) (sel []int32, ok bool, err error) {
	v, err := b.col(f.col)
	if err != nil {
		return nil, false, err
	}
	if v.Const || v.Valid != nil {
		return nil, false, nil
	}
	n := b.N
	if b.Sel != nil {
		n = len(b.Sel)
	}
	out := make([]int32, 0, n)
	if f.selInt != nil {
		if v.Ints == nil {
			return nil, false, nil
		}
		return f.selInt(v.Ints[:b.N], f.ki, b.Sel, out), true, nil
	}
	if v.Floats == nil {
		return nil, false, nil
	}
	return f.selFloat(v.Floats[:b.N], f.kf, b.Sel, out), true, nil
}
