package fn

import "iter"

// Rows says which rows of a batch a function computes: N physical rows,
// of which Sel lists the live ones in ascending order (nil: all N). It is
// vector.Batch's selection, and the contract is the batch's: a function
// returns a vector of N rows (or a Const), writes the values and validity
// of the live rows only, and leaves dead rows unspecified; no caller reads
// them.
type Rows struct {
	N   int
	Sel []int32
}

// Dense returns the Rows of n rows, all live.
func Dense(n int) Rows { return Rows{N: n} }

// Live yields the live row indexes in ascending order. Written as
// `for i := range rows.Live()`, the compiler inlines the iterator and the
// loop body, so a function's row loop costs what a plain counted loop
// costs (BenchmarkRowsLive) and no function has to write the dense and the
// selective loop twice.
func (r Rows) Live() iter.Seq[int] {
	return func(yield func(int) bool) {
		if r.Sel == nil {
			for i := 0; i < r.N; i++ {
				if !yield(i) {
					return
				}
			}
			return
		}
		for _, j := range r.Sel {
			if !yield(int(j)) {
				return
			}
		}
	}
}

// Count returns the number of live rows.
func (r Rows) Count() int {
	if r.Sel != nil {
		return len(r.Sel)
	}
	return r.N
}
