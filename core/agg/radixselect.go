package agg

import (
	"math"
)

// floatOrderKey maps a float64 to a uint64 whose unsigned order is the float's
// order (the usual sign flip; NaN never reaches here, callers skip it).
func floatOrderKey(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// intOrderKey maps an int64 to a uint64 in the same order.
func intOrderKey(v int64) uint64 { return uint64(v) ^ 1<<63 }

// radixSelect returns the k-th smallest value (0-based) of a group's
// values without reordering them: a histogram of the top 12 bits of each
// value's order key finds the bucket holding rank k, and only that
// bucket's values are collected and selected. Two sequential passes over
// the data replace the several swapping passes of quickselect, which
// matters for the large groups that percentile keeps exactly. The key
// function is chosen once, outside the loops, so they stay tight.
func radixSelect[T number](g *qgroup[T], k int) T {
	chunks := append(g.full[:len(g.full):len(g.full)], g.vals)
	var zero T
	if _, isFloat := any(zero).(float64); isFloat {
		fc := make([][]float64, len(chunks))
		for i, c := range chunks {
			fc[i] = any(c).([]float64)
		}
		return any(radixSelectOf(fc, k, floatOrderKey)).(T)
	}
	ic := make([][]int64, len(chunks))
	for i, c := range chunks {
		ic[i] = any(c).([]int64)
	}
	return any(radixSelectOf(ic, k, intOrderKey)).(T)
}

func radixSelectOf[E float64 | int64](chunks [][]E, k int, key func(E) uint64) E {
	const bits = 12
	var hist [1 << bits]int32
	for _, c := range chunks {
		for _, x := range c {
			hist[key(x)>>(64-bits)]++
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
	cand := make([]E, 0, hist[bucket])
	for _, c := range chunks {
		for _, x := range c {
			if int(key(x)>>(64-bits)) == bucket {
				cand = append(cand, x)
			}
		}
	}
	return selectKth(cand, k-before)
}
