package vector

// Mixed is the unboxed side of a Dynamic vector whose rows are mostly
// numbers: a field stored as 200 in most events and as "200" or "n/a" in
// a few. The Dynamic vector keeps every row boxed in Dyns, so operators
// without a mixed kernel read it as before; the numeric kernels
// (aggregations, comparisons with a constant, sort, grouping) read the
// number rows from Floats and go to Dyns only for the other rows.
//
// Row i of the vector is described by four bits:
//
//	Num   the value is a long or a real: Floats[i] is it exactly (a long
//	      is only ever here when it fits a float64's 53-bit mantissa,
//	      so comparing Floats orders longs as comparing the longs does)
//	Real  the value reads as a number the way the aggregations read a
//	      dynamic value (toreal): Num rows, numeric strings, bools,
//	      timespans; Floats[i] holds that number
//	Ord   min and max order the row as the number in Floats: Num rows
//	      and numeric strings, except strings of longs beyond 2^53
//	Int   an Ord row that is a long, or a string of one: min and max
//	      keep it as a long
//
// A null row has no bit set. Mixed is never set on a constant vector;
// Slice and Gather carry it over, and a vector that changes Dyns or its
// validity must drop it.
type Mixed struct {
	Floats []float64
	Num    Bitmap
	Real   Bitmap
	Ord    Bitmap
	Int    Bitmap
	// NaN reports whether a Real row holds NaN, which the comparison
	// kernels order differently from cmp.Compare.
	NaN bool
}

// Mix returns v's mixed side when it has one that describes every row,
// else nil.
func (v *Vector) Mix() *Mixed {
	m := v.Mixed
	if m == nil || v.Type != Dynamic || v.Const || len(m.Floats) < v.Len {
		return nil
	}
	return m
}

// Reals returns the rows of v that read as numbers as a Float vector
// sharing the mixed side's payload (the others null), or nil when v has
// no mixed side.
func (v *Vector) Reals() *Vector {
	m := v.Mix()
	if m == nil {
		return nil
	}
	return &Vector{Type: Float, Len: v.Len, Floats: m.Floats[:v.Len], Valid: m.Real}
}

// slice returns rows [lo, hi) of m; lo is a multiple of 64.
func (m *Mixed) slice(lo, hi int) *Mixed {
	w0, w1 := lo/64, (hi+63)/64
	return &Mixed{Floats: m.Floats[lo:hi], Num: m.Num[w0:w1], Int: m.Int[w0:w1], Real: m.Real[w0:w1], Ord: m.Ord[w0:w1], NaN: m.NaN}
}

// gather returns rows sel of m, in order.
func (m *Mixed) gather(sel []int32) *Mixed {
	n := len(sel)
	out := &Mixed{Floats: make([]float64, n), Num: NewBitmap(n), Real: NewBitmap(n), Ord: NewBitmap(n), Int: NewBitmap(n), NaN: m.NaN}
	for j, i := range sel {
		out.Floats[j] = m.Floats[i]
		for _, b := range [...]struct{ from, to Bitmap }{{m.Num, out.Num}, {m.Real, out.Real}, {m.Ord, out.Ord}, {m.Int, out.Int}} {
			if b.from.Get(int(i)) {
				b.to.Set(j)
			}
		}
	}
	return out
}
