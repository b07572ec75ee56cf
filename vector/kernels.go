package vector

// ArithKernels are the loops of one arithmetic operator over one element
// type, generated from one template (kernels.eg.go): for two vectors (VV),
// a vector and a constant (VC) and a constant and a vector (CV), each
// dense (every row of out) and selective (*Sel: only the rows in sel, the
// others of out left as they were). Every kernel returns valid with the
// rows it made null cleared: only integer division and modulo by zero do,
// allocating a set bitmap of len(out) rows when valid is nil.
//
// A planner picks the kernels once per expression, so no operator string
// is looked at per batch.
type ArithKernels[T int64 | float64] struct {
	VV    func(l, r []T, out []T, valid Bitmap) Bitmap
	VVSel func(l, r []T, sel []int32, out []T, valid Bitmap) Bitmap
	VC    func(l []T, k T, out []T, valid Bitmap) Bitmap
	VCSel func(l []T, k T, sel []int32, out []T, valid Bitmap) Bitmap
	CV    func(k T, r []T, out []T, valid Bitmap) Bitmap
	CVSel func(k T, r []T, sel []int32, out []T, valid Bitmap) Bitmap
}

// CmpKernels are ArithKernels' counterpart for a comparison operator:
// they write one bool per row and know nothing of nulls, which the caller
// applies after (APL's null rules depend on the operator, not the type).
type CmpKernels[T int64 | float64 | string] struct {
	VV    func(l, r []T, out []bool)
	VVSel func(l, r []T, sel []int32, out []bool)
	VC    func(l []T, k T, out []bool)
	VCSel func(l []T, k T, sel []int32, out []bool)
	CV    func(k T, r []T, out []bool)
	CVSel func(k T, r []T, sel []int32, out []bool)
}

// grow returns out with room for n more elements.
func grow(out []int32, n int) []int32 {
	if cap(out)-len(out) >= n {
		return out[:len(out)+n]
	}
	nb := make([]int32, len(out)+n, 2*len(out)+n)
	copy(nb, out)
	return nb
}

// b2i is 1 for true and 0 for false; the compiler lowers it to a SETcc.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nullAt clears bit i of valid, first making valid an all-set bitmap of n
// rows when it is nil (no row was null before).
func nullAt(valid Bitmap, n, i int) Bitmap {
	if valid == nil {
		valid = NewBitmapSet(n)
	}
	valid.Clear(i)
	return valid
}
