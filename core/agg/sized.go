package agg

import "unsafe"

// Sized is a State whose memory grows with the values it is fed, not
// only with its number of groups (make_list, make_set, make_bag, dcount,
// percentile): Bytes is an estimate of the payload it holds, kept as a
// running count so that asking costs nothing. The executor charges its
// growth to the query's memory budget once per input batch; a state
// whose size is fixed per group need not implement it (the executor
// charges a flat amount per group for those).
type Sized interface {
	Bytes() int64
}

// SizeOf returns st's Bytes when it is Sized, else 0.
func SizeOf(st State) int64 {
	if s, ok := st.(Sized); ok {
		return s.Bytes()
	}
	return 0
}

// valueBytes estimates what one collected value holds beyond its slot: a
// string's bytes, a dynamic value's box and contents (one level deep; an
// element of a nested value is counted as a box).
func valueBytes(x any) int64 {
	switch v := x.(type) {
	case string:
		return int64(len(v))
	case []any:
		n := int64(24 + 16*cap(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				n += 16 + int64(len(s))
			} else {
				n += 8
			}
		}
		return n
	case map[string]any:
		n := int64(48)
		for k := range v {
			n += 48 + int64(len(k))
		}
		return n
	case nil:
		return 0
	}
	return 8 // a boxed scalar
}

// sizeOfT is the size of one T in a slice.
func sizeOfT[T any]() int64 {
	var x T
	return int64(unsafe.Sizeof(x))
}
