package exec

import "sync"

// scratch lends the buffers that expressions write their numeric results
// into while one scan batch passes through the streaming stages, and takes
// them all back at once when the sink is done with the batch. Without it
// each arithmetic operator allocated a fresh result per batch: 512 KiB
// zeroed per 64Ki-row morsel, six of them for six extends, and the garbage
// collector's work on top.
//
// Ownership (core/DESIGN.md, "Scratch buffers"): a buffer taken from a
// Batch's scratch belongs to that batch; the scan worker that made the
// Batch reclaims every buffer after its sink's consume returns, and only
// when the sink and every stage before it keep nothing of a batch after
// it returns (sinkKeepsNothing, stageKeepsNothing). Anywhere else the
// Batch has no scratch, and takers allocate as before. Buffers come back
// with their old contents, which the batch contract allows: dead rows
// are unspecified, and kernels write every live row.
type scratch struct {
	ints   bufPool[int64]
	floats bufPool[float64]
	sels   bufPool[int32]
}

// bufPool is one element type's buffers: those free, and those lent to
// the current batch.
type bufPool[T any] struct {
	free, lent [][]T
}

// take returns a buffer of n elements with unspecified contents.
func (p *bufPool[T]) take(n int) []T {
	for i := len(p.free) - 1; i >= 0; i-- {
		if b := p.free[i]; cap(b) >= n {
			last := len(p.free) - 1
			p.free[i] = p.free[last]
			p.free[last] = nil
			p.free = p.free[:last]
			p.lent = append(p.lent, b)
			return b[:n]
		}
	}
	b := make([]T, n)
	p.lent = append(p.lent, b)
	return b
}

// reclaim makes every lent buffer free again.
func (p *bufPool[T]) reclaim() {
	p.free = append(p.free, p.lent...)
	clear(p.lent)
	p.lent = p.lent[:0]
}

// reclaim takes back every buffer lent since the last reclaim.
func (s *scratch) reclaim() {
	s.ints.reclaim()
	s.floats.reclaim()
	s.sels.reclaim()
}

// takeInts returns n int64s from s, or newly allocated ones when s is nil.
func takeInts(s *scratch, n int) []int64 {
	if s == nil {
		return make([]int64, n)
	}
	return s.ints.take(n)
}

// takeFloats returns n float64s from s, or newly allocated ones when s
// is nil.
func takeFloats(s *scratch, n int) []float64 {
	if s == nil {
		return make([]float64, n)
	}
	return s.floats.take(n)
}

// scratchPool keeps the scratch of finished scans for the next query, so
// a query's first batches do not allocate either; the garbage collector
// empties it when memory is needed.
var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// stageKeepsNothing is a streaming stage that holds no vector of a batch
// once its apply has returned (where, extend, project).
type stageKeepsNothing interface{ keepsNothing() }

// sinkKeepsNothing is a sink that holds no vector of a batch once its
// consume has returned: aggregation states copy the values they need.
type sinkKeepsNothing interface{ keepsNothing() }

// ScratchFor returns one scratch per worker when the batches the stages
// hand sink may have their buffers reused after consume, else nil.
func ScratchFor(stages []Stage, s sink, workers int) []*scratch {
	if _, ok := s.(sinkKeepsNothing); !ok {
		return nil
	}
	for _, st := range stages {
		if _, ok := st.(stageKeepsNothing); !ok {
			return nil
		}
	}
	out := make([]*scratch, workers)
	for i := range out {
		out[i] = scratchPool.Get().(*scratch)
	}
	return out
}

// releaseScratch returns the workers' scratch to the pool.
func releaseScratch(ss []*scratch) {
	for _, s := range ss {
		s.reclaim()
		scratchPool.Put(s)
	}
}
