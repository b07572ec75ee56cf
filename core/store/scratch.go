package store

import (
	"sync"

	"github.com/aplite/aplite/vector"
)

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

// colPool recycles the payload of a column gathered for encoding (a
// block's worth of values, dropped as soon as its blob is written).
type colPool[T any] struct{ p sync.Pool }

// get returns an empty slice with room for n values.
func (c *colPool[T]) get(n int) []T {
	if s, ok := c.p.Get().(*[]T); ok && cap(*s) >= n {
		return (*s)[:0]
	}
	return make([]T, 0, n)
}

// put recycles s, cleared so it keeps no strings alive.
func (c *colPool[T]) put(s []T) {
	if cap(s) > 0 && cap(s) <= 1<<21 {
		s = s[:cap(s)]
		clear(s)
		c.p.Put(&s)
	}
}

var (
	intCols   colPool[int64]
	floatCols colPool[float64]
	strCols   colPool[string]
	boolCols  colPool[bool]
)

// newGathered returns an empty vector of type t with room for n rows,
// its payload from the pools.
func newGathered(t vector.Type, n int) *vector.Vector {
	v := &vector.Vector{Type: t}
	switch t {
	case vector.Bool:
		v.Bools = boolCols.get(n)
	case vector.Int, vector.DateTime, vector.TimeSpan:
		v.Ints = intCols.get(n)
	case vector.Float:
		v.Floats = floatCols.get(n)
	case vector.String:
		v.Strs = strCols.get(n)
	case vector.Dynamic:
		v.Dyns = make([]any, 0, n)
	}
	return v
}

// recycle returns a gathered vector's payload to the pools; v must not be
// used afterwards.
func recycle(v *vector.Vector) {
	boolCols.put(v.Bools)
	intCols.put(v.Ints)
	floatCols.put(v.Floats)
	strCols.put(v.Strs)
	*v = vector.Vector{}
}
