package vector

// BatchSize is the number of rows a scan hands to the operator pipeline at
// a time: large enough to amortise per-batch work, small enough that a
// batch's columns stay in L2 cache.
const BatchSize = 8192

// Batch is a set of equally long columns plus an optional selection
// vector; it is what the engine's operators hand each other.
//
// The contract every operator and kernel keeps:
//   - Sel nil means all N rows are live. Otherwise Sel lists the live
//     rows in ascending order, each in [0, N).
//   - A kernel over a batch with Sel computes and writes only the live
//     rows of its output; the output still has N rows.
//   - The values (and validity bits) of dead rows are unspecified: no
//     reader may look at them, and no writer has to clear them.
//
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
