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
		return any(radixSelectFloat(fc, k)).(T)
	}
	ic := make([][]int64, len(chunks))
	for i, c := range chunks {
		ic[i] = any(c).([]int64)
	}
	return any(radixSelectInt(ic, k)).(T)
}

// radixBits is how many top key bits the histogram pass looks at.
const radixBits = 12

// radixBucket finds the histogram bucket holding rank k and the count of
// values before it.
func radixBucket(hist *[1 << radixBits]int32, k int) (bucket, before int) {
	for b, c := range hist {
		if before+int(c) > k {
			return b, before
		}
		before += int(c)
	}
	return len(hist) - 1, before
}

// radixSelectFloat and radixSelectInt are radixSelect's two passes with
// the key computed inline (a function value per element costs an
// indirect call each).
func radixSelectFloat(chunks [][]float64, k int) float64 {
	var hist [1 << radixBits]int32
	for _, c := range chunks {
		for _, x := range c {
			hist[floatOrderKey(x)>>(64-radixBits)]++
		}
	}
	bucket, before := radixBucket(&hist, k)
	cand := make([]float64, 0, hist[bucket])
	for _, c := range chunks {
		for _, x := range c {
			if int(floatOrderKey(x)>>(64-radixBits)) == bucket {
				cand = append(cand, x)
			}
		}
	}
	return selectKth(cand, k-before)
}

func radixSelectInt(chunks [][]int64, k int) int64 {
	var hist [1 << radixBits]int32
	for _, c := range chunks {
		for _, x := range c {
			hist[intOrderKey(x)>>(64-radixBits)]++
		}
	}
	bucket, before := radixBucket(&hist, k)
	cand := make([]int64, 0, hist[bucket])
	for _, c := range chunks {
		for _, x := range c {
			if int(intOrderKey(x)>>(64-radixBits)) == bucket {
				cand = append(cand, x)
			}
		}
	}
	return selectKth(cand, k-before)
}
