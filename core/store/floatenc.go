package store

import (
	"math"
	"slices"
)

// Real encodings (FORMAT.md).
const (
	floatPlain   = 0
	floatDecimal = 1
)

// pow10 holds the scales the decimal encoding tries.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// decimalScale returns the smallest scale s such that every value is
// exactly m/10^s for an integer m of at most 53 bits, or false. Values
// measured with a fixed number of decimals (durations, prices) then store
// as small integers instead of 8 random-looking bytes.
func decimalScale(vals []float64) (int, bool) {
	s := 0
	for _, x := range vals {
		for ; s < len(pow10); s++ {
			if exactAtScale(x, s) {
				break
			}
		}
		if s == len(pow10) {
			return 0, false
		}
	}
	return s, true
}

func exactAtScale(x float64, s int) bool {
	y := x * pow10[s]
	if math.IsNaN(y) || math.Abs(y) > 1<<53 {
		return false
	}
	m := math.Round(y)
	return math.Float64bits(m/pow10[s]) == math.Float64bits(x)
}

// putFloats appends the decimal encoding when it applies, else plain.
func putFloats(dst []byte, vals []float64, aligned bool) []byte {
	if s, ms, ok := decimalInts(vals); ok {
		return putInts(append(dst, floatDecimal, byte(s)), ms, aligned)
	}
	return putFloatsPlain(dst, vals)
}

// floatVariants returns the candidate encodings of vals after head: the decimal
// ones (as intVariants gives them) when a scale fits every value, else
// plain.
func floatVariants(head []byte, vals []float64) []variant {
	if s, ms, ok := decimalInts(vals); ok {
		return intVariants(append(slices.Clip(head), floatDecimal, byte(s)), ms)
	}
	return []variant{{putFloatsPlain(slices.Clip(head), vals), true}}
}

// decimalInts returns the scale and the scaled integers of the decimal
// encoding, or false when it does not apply.
func decimalInts(vals []float64) (int, []int64, bool) {
	s, ok := decimalScale(vals)
	if !ok || len(vals) == 0 {
		return 0, nil, false
	}
	ms := make([]int64, len(vals))
	for i, x := range vals {
		ms[i] = int64(math.Round(x * pow10[s]))
	}
	return s, ms, true
}

// putFloatsPlain appends the plain encoding (any value, NaN included).
func putFloatsPlain(dst []byte, vals []float64) []byte {
	dst = slices.Grow(append(dst, floatPlain), 8*len(vals))
	for _, x := range vals {
		dst = putF64(dst, x)
	}
	return dst
}

func (r *reader) readFloats(dst []float64) {
	switch enc := r.u8(); enc {
	case floatPlain:
		b := r.take(8 * len(dst))
		if r.err != nil {
			return
		}
		for i := range dst {
			dst[i] = math.Float64frombits(leU64(b[8*i:]))
		}
	case floatDecimal:
		s := int(r.u8())
		if s >= len(pow10) {
			r.fail("decimal scale out of range")
			return
		}
		ms := make([]int64, len(dst))
		r.readInts(ms)
		for i, m := range ms {
			dst[i] = float64(m) / pow10[s]
		}
	default:
		r.pos--
		r.fail("unknown real encoding")
	}
}
