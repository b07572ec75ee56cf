package core

import "github.com/aplite/aplite/vector"

// remap returns a batch whose column i is column idx[i] of b, keeping b's
// selection and its lazy loading: a column that was not decoded yet is
// decoded only if a later operator asks for it.
func remap(b *batch, idx []int) *batch {
	nb := &batch{vecs: make([]*vector.Vector, len(idx)), n: b.n, sel: b.sel}
	lazy := false
	for i, j := range idx {
		nb.vecs[i] = b.vecs[j]
		if nb.vecs[i] == nil {
			lazy = true
		}
	}
	if lazy {
		nb.load = func(i int) (*vector.Vector, error) { return b.col(idx[i]) }
	}
	return nb
}

// withColumns returns b with extra columns appended (lazily loaded columns
// of b stay lazy).
func withColumns(b *batch, extra ...*vector.Vector) *batch {
	idx := make([]int, len(b.vecs))
	for i := range idx {
		idx[i] = i
	}
	nb := remap(b, idx)
	nb.vecs = append(nb.vecs, extra...)
	return nb
}
