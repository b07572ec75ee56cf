package exec

import "github.com/aplite/aplite/vector"

// remap returns a batch whose column i is column idx[i] of b, keeping b's
// selection and its lazy loading: a column that was not decoded yet is
// decoded only if a later operator asks for it.
func remap(b *Batch, idx []int) *Batch {
	nb := &Batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(idx)), N: b.N, Sel: b.Sel}, scratch: b.scratch}
	lazy := false
	for i, j := range idx {
		nb.Cols[i] = b.Cols[j]
		if nb.Cols[i] == nil {
			lazy = true
		}
	}
	if lazy {
		nb.load = func(i int) (*vector.Vector, error) { return b.Col(idx[i]) }
	}
	return nb
}

// withColumns returns b with extra columns appended (lazily loaded columns
// of b stay lazy).
func withColumns(b *Batch, extra ...*vector.Vector) *Batch {
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
func narrow(b *Batch) *Batch {
	sel := b.Sel
	nb := &Batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(b.Cols)), N: len(sel)}, scratch: b.scratch}
	lazy := false
	for i, v := range b.Cols {
		if v == nil {
			lazy = true
			continue
		}
		nb.Cols[i] = gather(b.scratch, v, sel)
	}
	if lazy {
		nb.load = func(i int) (*vector.Vector, error) {
			v, err := b.Col(i)
			if err != nil {
				return nil, err
			}
			return gather(b.scratch, v, sel), nil
		}
	}
	return nb
}

// Sparse reports whether few enough rows of b are live that narrowing it
// pays for the copies.
func Sparse(b *Batch) bool { return b.Sel != nil && len(b.Sel)*4 < b.N }

// gather is v.Gather(sel), into a buffer from s for a plain long-backed
// or real column: a narrowed batch's columns are as short-lived as the
// Batch.
func gather(s *scratch, v *vector.Vector, sel []int32) *vector.Vector {
	if s == nil || v.Const || v.Valid != nil {
		return v.Gather(sel)
	}
	switch {
	case v.Type.IsInt64Backed():
		out := &vector.Vector{Type: v.Type, Len: len(sel), Ints: takeInts(s, len(sel))}
		for j, i := range sel {
			out.Ints[j] = v.Ints[i]
		}
		return out
	case v.Type == vector.Float:
		out := &vector.Vector{Type: v.Type, Len: len(sel), Floats: takeFloats(s, len(sel))}
		for j, i := range sel {
			out.Floats[j] = v.Floats[i]
		}
		return out
	}
	return v.Gather(sel)
}
