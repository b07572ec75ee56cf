package agg

import (
	"math"
)

// orderKey maps a value to a uint64 whose unsigned order is the value's
// order: the usual sign-flip for floats (NaN never reaches here; callers
// skip it) and an offset for signed integers.
func orderKey[T number](x T) uint64 {
	switch v := any(x).(type) {
	case float64:
		b := math.Float64bits(v)
		if b>>63 != 0 {
			return ^b
		}
		return b | 1<<63
	case int64:
		return uint64(v) ^ 1<<63
	}
	return 0
}

// radixSelect returns the k-th smallest value (0-based) of vals without
// reordering it: a histogram of the top 12 bits of each value's order key
// finds the bucket holding rank k, and only that bucket's values are
// collected and selected. Two sequential passes over the data replace the
// several swapping passes of quickselect, which matters for the large
// groups that percentile keeps exactly.
func radixSelect[T number](g *qgroup[T], k int) T {
	const bits = 12
	var hist [1 << bits]int32
	chunks := append(g.full[:len(g.full):len(g.full)], g.vals)
	for _, c := range chunks {
		for _, x := range c {
			hist[orderKey(x)>>(64-bits)]++
		}
	}
	bucket, before := 0, 0
	for b, c := range hist {
		if before+int(c) > k {
			bucket = b
			break
		}
		before += int(c)
	}
	cand := make([]T, 0, hist[bucket])
	for _, c := range chunks {
		for _, x := range c {
			if int(orderKey(x)>>(64-bits)) == bucket {
				cand = append(cand, x)
			}
		}
	}
	return selectKth(cand, k-before)
}
