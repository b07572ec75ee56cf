package vector

// BatchSize is the number of rows a scan hands to the operator pipeline at
// a time: large enough to amortise per-batch work, small enough that a
// batch's columns stay in L2 cache.
const BatchSize = 8192

// Batch is a set of equally long columns plus an optional selection
// vector. When Sel is nil every one of the N rows is live; otherwise only
// the rows listed in Sel (ascending) are, and the others must be ignored.
// Filters narrow Sel instead of copying columns; operators that need dense
// columns call Compact.
type Batch struct {
	Cols []*Vector
	N    int
	Sel  []int32
}

// Rows returns the number of live rows.
func (b *Batch) Rows() int {
	if b.Sel != nil {
		return len(b.Sel)
	}
	return b.N
}

// Compact gathers the selected rows so that Sel is nil afterwards.
func (b *Batch) Compact() {
	if b.Sel == nil {
		return
	}
	for i, c := range b.Cols {
		b.Cols[i] = c.Gather(b.Sel)
	}
	b.N = len(b.Sel)
	b.Sel = nil
}
