package core

import "github.com/aplite/aplite/vector"

// remap returns a batch whose column i is column idx[i] of b, keeping b's
// selection and its lazy loading: a column that was not decoded yet is
// decoded only if a later operator asks for it.
func remap(b *batch, idx []int) *batch {
	nb := &batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(idx)), N: b.N, Sel: b.Sel}}
	lazy := false
	for i, j := range idx {
		nb.Cols[i] = b.Cols[j]
		if nb.Cols[i] == nil {
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
	idx := make([]int, len(b.Cols))
	for i := range idx {
		idx[i] = i
	}
	nb := remap(b, idx)
	nb.Cols = append(nb.Cols, extra...)
	return nb
}

// narrow returns b with its selection applied: loaded columns are
// gathered now, lazy ones when they are loaded. Expressions compute only
// the live rows of a batch, but each still allocates a result of all its
// rows, so after a selective filter (where status == 500 keeps 1.5%) an
// extend over the narrowed batch allocates 1/60th: without narrowing, six
// extends there cost 28 ms and 64 MB a query instead of 5 ms and 9 MB
// (BenchmarkSelectiveExtend). Worth it when few rows are live; the
// caller decides.
func narrow(b *batch) *batch {
	sel := b.Sel
	nb := &batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(b.Cols)), N: len(sel)}}
	lazy := false
	for i, v := range b.Cols {
		if v == nil {
			lazy = true
			continue
		}
		nb.Cols[i] = v.Gather(sel)
	}
	if lazy {
		nb.load = func(i int) (*vector.Vector, error) {
			v, err := b.col(i)
			if err != nil {
				return nil, err
			}
			return v.Gather(sel), nil
		}
	}
	return nb
}

// sparse reports whether few enough rows of b are live that narrowing it
// pays for the copies.
func sparse(b *batch) bool { return b.Sel != nil && len(b.Sel)*4 < b.N }
