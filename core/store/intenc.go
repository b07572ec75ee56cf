package store

import (
	"math"
	"math/bits"
	"slices"
)

// Integer encodings (FORMAT.md).
const (
	intFOR   = 0
	intDelta = 1
	intDict  = 2
)

// maxIntDict bounds the distinct values an integer dictionary may hold.
const maxIntDict = 4096

// alignWidth rounds a bit width up to a byte multiple, which costs space
// before compression but lets zstd see whole-byte symbols.
func alignWidth(w int) int {
	switch {
	case w == 0:
		return 0
	case w <= 8:
		return 8
	case w <= 16:
		return 16
	case w <= 32:
		return 32
	}
	return 64
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// intPlan is one candidate integer encoding and its estimated size.
type intPlan struct {
	enc      byte
	base     int64  // FOR base or delta minimum
	gcd      uint64 // common divisor of offsets from base (>= 1)
	width    int
	dict     []int64
	estimate int
}

// planInts picks the smallest integer encoding for vals.
func planInts(vals []int64, aligned bool) intPlan {
	best, _ := planIntsAs(vals, intFOR, aligned)
	for _, enc := range []byte{intDelta, intDict} {
		if p, ok := planIntsAs(vals, enc, aligned); ok && p.estimate < best.estimate {
			best = p
		}
	}
	return best
}

// planIntsAs plans one specific encoding; false when it cannot apply.
func planIntsAs(vals []int64, enc byte, aligned bool) (intPlan, bool) {
	width := func(w int) int {
		if aligned {
			return alignWidth(w)
		}
		return w
	}
	switch enc {
	case intDelta:
		return planDelta(vals, width)
	case intDict:
		return planIntDict(vals, width)
	}
	lo, hi := minMaxInts(vals)
	g := uint64(0)
	for _, v := range vals {
		g = gcd(g, uint64(v)-uint64(lo))
	}
	if g == 0 {
		g = 1
	}
	p := intPlan{enc: intFOR, base: lo, gcd: g}
	p.width = width(bits.Len64((uint64(hi) - uint64(lo)) / g))
	p.estimate = 20 + packedLen(len(vals), p.width)
	return p, true
}

func minMaxInts(vals []int64) (lo, hi int64) {
	if len(vals) == 0 {
		return 0, 0
	}
	lo, hi = vals[0], vals[0]
	for _, v := range vals[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// planDelta plans delta encoding; it declines when a delta overflows.
func planDelta(vals []int64, width func(int) int) (intPlan, bool) {
	if len(vals) < 2 {
		return intPlan{}, false
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := 1; i < len(vals); i++ {
		d, ok := sub(vals[i], vals[i-1])
		if !ok {
			return intPlan{}, false
		}
		lo, hi = min(lo, d), max(hi, d)
	}
	g := uint64(0)
	for i := 1; i < len(vals); i++ {
		g = gcd(g, uint64(vals[i]-vals[i-1])-uint64(lo))
	}
	if g == 0 {
		g = 1
	}
	w := width(bits.Len64((uint64(hi) - uint64(lo)) / g))
	return intPlan{enc: intDelta, base: lo, gcd: g, width: w, estimate: 30 + packedLen(len(vals)-1, w)}, true
}

// sub returns a-b and whether it did not overflow.
func sub(a, b int64) (int64, bool) {
	d := a - b
	return d, (a >= b) == (d >= 0)
}

func planIntDict(vals []int64, width func(int) int) (intPlan, bool) {
	seen := make(map[int64]struct{}, 64)
	for _, v := range vals {
		if _, ok := seen[v]; !ok {
			if len(seen) == maxIntDict {
				return intPlan{}, false
			}
			seen[v] = struct{}{}
		}
	}
	dict := make([]int64, 0, len(seen))
	for v := range seen {
		dict = append(dict, v)
	}
	slices.Sort(dict)
	w := width(bits.Len64(uint64(len(dict) - 1)))
	est := 5 + 5*len(dict) + packedLen(len(vals), w)
	return intPlan{enc: intDict, dict: dict, width: w, estimate: est}, true
}

// putInts appends the encoding chosen by planInts.
func putInts(dst []byte, vals []int64, aligned bool) []byte {
	return putIntPlan(dst, vals, planInts(vals, aligned))
}

// putIntPlan appends vals in the planned encoding.
func putIntPlan(dst []byte, vals []int64, p intPlan) []byte {
	dst = append(dst, p.enc)
	packed := make([]uint64, len(vals))
	switch p.enc {
	case intFOR:
		dst = putVarint(dst, p.base)
		dst = putUvarint(dst, p.gcd)
		for i, v := range vals {
			packed[i] = (uint64(v) - uint64(p.base)) / p.gcd
		}
	case intDelta:
		dst = putVarint(dst, vals[0])
		dst = putVarint(dst, p.base)
		dst = putUvarint(dst, p.gcd)
		packed = packed[:len(vals)-1]
		for i := 1; i < len(vals); i++ {
			packed[i-1] = (uint64(vals[i]-vals[i-1]) - uint64(p.base)) / p.gcd
		}
	case intDict:
		dst = putUvarint(dst, uint64(len(p.dict)))
		for _, v := range p.dict {
			dst = putVarint(dst, v)
		}
		for i, v := range vals {
			c, _ := slices.BinarySearch(p.dict, v)
			packed[i] = uint64(c)
		}
	}
	return putPacked(dst, packed, p.width)
}

// readInts decodes an integer encoding of len(dst) values.
func (r *reader) readInts(dst []int64) {
	n := len(dst)
	packed := make([]uint64, n)
	switch enc := r.u8(); enc {
	case intFOR:
		base, g := r.varint(), r.uvarint()
		r.readPacked(packed)
		for i, p := range packed {
			dst[i] = int64(uint64(base) + p*g)
		}
	case intDelta:
		if n == 0 {
			r.fail("delta encoding of zero values")
			return
		}
		first, lo, g := r.varint(), r.varint(), r.uvarint()
		r.readPacked(packed[:n-1])
		dst[0] = first
		for i := 1; i < n; i++ {
			dst[i] = dst[i-1] + int64(uint64(lo)+packed[i-1]*g)
		}
	case intDict:
		k := r.count(1, "dictionary")
		dict := make([]int64, k)
		for i := range dict {
			dict[i] = r.varint()
		}
		r.readPacked(packed)
		for i, c := range packed {
			if c >= uint64(k) {
				r.fail("dictionary code out of range")
				return
			}
			dst[i] = dict[c]
		}
	default:
		r.pos--
		r.fail("unknown integer encoding")
	}
}
