package store

import "sync"

// Encoding a column needs value-sized temporaries (packed offsets,
// dictionary codes, scaled decimals): half a megabyte each for a 65,536
// row block. Pooling them keeps the encoder from allocating several
// megabytes per block, which would otherwise drive the GC far more often
// than the blocks themselves do.
var u64Pool sync.Pool // *[]uint64

// getU64s returns a slice of n values with unspecified contents.
func getU64s(n int) []uint64 {
	if p, ok := u64Pool.Get().(*[]uint64); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]uint64, n, max(n, 1024))
}

// putU64s returns s to the pool; the caller must not use it afterwards.
func putU64s(s []uint64) {
	if cap(s) > 0 && cap(s) <= 1<<22 {
		u64Pool.Put(&s)
	}
}
