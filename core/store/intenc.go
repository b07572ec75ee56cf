package store

import (
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

// absDiff is |a-b| exactly (it always fits in 64 bits unsigned).
func absDiff(a, b int64) uint64 {
	if a >= b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}

// intStats is everything the frame-of-reference and delta plans need,
// gathered in one pass so that no candidate encoding has to be built to
// be sized. The gcd of offsets from the minimum equals the gcd of
// differences from the first value, which one pass can compute.
type intStats struct {
	n        int
	lo, hi   int64
	g        uint64 // gcd of v - lo (0 when all equal)
	deltaOK  bool   // no delta overflows int64
	dlo, dhi int64
	dg       uint64 // gcd of d - dlo over the deltas d
}

func intStatsOf(vals []int64) intStats {
	s := intStats{n: len(vals)}
	if len(vals) == 0 {
		return s
	}
	v0 := vals[0]
	s.lo, s.hi = v0, v0
	s.deltaOK = len(vals) >= 2
	prev, d0 := v0, int64(0)
	for i, v := range vals[1:] {
		s.lo, s.hi = min(s.lo, v), max(s.hi, v)
		if s.g != 1 {
			if x := absDiff(v, v0); s.g == 0 || x%s.g != 0 {
				s.g = gcd(s.g, x)
			}
		}
		if s.deltaOK {
			d, ok := sub(v, prev)
			switch {
			case !ok:
				s.deltaOK = false
			case i == 0:
				d0, s.dlo, s.dhi = d, d, d
			default:
				s.dlo, s.dhi = min(s.dlo, d), max(s.dhi, d)
				if s.dg != 1 {
					if x := absDiff(d, d0); s.dg == 0 || x%s.dg != 0 {
						s.dg = gcd(s.dg, x)
					}
				}
			}
		}
		prev = v
	}
	return s
}

// forWidth and deltaWidth are the tight packed widths of the two plans.
func (s *intStats) forWidth() int { return bits.Len64((uint64(s.hi) - uint64(s.lo)) / max(s.g, 1)) }
func (s *intStats) deltaWidth() int {
	return bits.Len64((uint64(s.dhi) - uint64(s.dlo)) / max(s.dg, 1))
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

// planFOR, planDeltaOf and planDictOf size one encoding at a width
// policy (tight, or rounded up to whole bytes).
func planFOR(s *intStats, width func(int) int) intPlan {
	w := width(s.forWidth())
	return intPlan{enc: intFOR, base: s.lo, gcd: max(s.g, 1), width: w, estimate: 20 + packedLen(s.n, w)}
}

func planDeltaOf(s *intStats, width func(int) int) (intPlan, bool) {
	if !s.deltaOK {
		return intPlan{}, false
	}
	w := width(s.deltaWidth())
	return intPlan{enc: intDelta, base: s.dlo, gcd: max(s.dg, 1), width: w, estimate: 30 + packedLen(s.n-1, w)}, true
}

func planDictOf(n int, dict []int64, width func(int) int) intPlan {
	w := width(bits.Len64(uint64(len(dict) - 1)))
	return intPlan{enc: intDict, dict: dict, width: w, estimate: 5 + 5*len(dict) + packedLen(n, w)}
}

func tightWidth(w int) int { return w }

func widthPolicy(aligned bool) func(int) int {
	if aligned {
		return alignWidth
	}
	return tightWidth
}

// planIntsAs plans one specific encoding; false when it cannot apply.
func planIntsAs(vals []int64, enc byte, aligned bool) (intPlan, bool) {
	s := intStatsOf(vals)
	switch enc {
	case intDelta:
		return planDeltaOf(&s, widthPolicy(aligned))
	case intDict:
		dict, ok := intDictOf(vals)
		if !ok {
			return intPlan{}, false
		}
		return planDictOf(len(vals), dict, widthPolicy(aligned)), true
	}
	return planFOR(&s, widthPolicy(aligned)), true
}

// bestIntPlan picks the smallest of the FOR, delta and dictionary plans
// at one width policy; dict is nil when no dictionary applies.
func bestIntPlan(s *intStats, dict []int64, width func(int) int) intPlan {
	best := planFOR(s, width)
	if p, ok := planDeltaOf(s, width); ok && p.estimate < best.estimate {
		best = p
	}
	if dict != nil {
		if p := planDictOf(s.n, dict, width); p.estimate < best.estimate {
			best = p
		}
	}
	return best
}

// intVariants returns the tight (bit-packed) encoding of vals and, when it
// differs, a byte-aligned one for the compressors. prefix is written
// before each (the real encodings' header).
func intVariants(prefix []byte, vals []int64) []variant {
	s := intStatsOf(vals)
	var dict []int64
	if dictWorthTrying(&s, vals) {
		dict, _ = intDictOf(vals)
	}
	tight := bestIntPlan(&s, dict, tightWidth)
	aligned := bestIntPlan(&s, dict, alignWidth)
	tb := putIntPlan(slices.Clone(prefix), vals, tight)
	if tight.enc == aligned.enc && tight.width == aligned.width {
		return []variant{{tb, true}}
	}
	return []variant{{tb, false}, {putIntPlan(slices.Clone(prefix), vals, aligned), true}}
}

// dictSample is how many evenly spread values decide whether building
// an integer dictionary is worth a pass.
const dictSample = 512

// dictWorthTrying samples vals: a dictionary can only win when few
// distinct values repeat and the offsets from the minimum are wide.
func dictWorthTrying(s *intStats, vals []int64) bool {
	w := s.forWidth()
	if w <= 4 || len(vals) < 16 {
		return false
	}
	step := max(len(vals)/dictSample, 1)
	sample := make([]int64, 0, dictSample+1)
	for i := 0; i < len(vals); i += step {
		sample = append(sample, vals[i])
	}
	slices.Sort(sample)
	distinct := len(slices.Compact(sample))
	// Needs fewer code bits than FOR bits, with room to spare for the
	// values the sample missed.
	return distinct <= len(sample)/4 && bits.Len(uint(distinct)) < w
}

// intDictOf returns the sorted distinct values, or false past maxIntDict.
func intDictOf(vals []int64) ([]int64, bool) {
	seen := make(map[int64]struct{}, 64)
	for _, v := range vals {
		if _, ok := seen[v]; !ok {
			if len(seen) == maxIntDict {
				return nil, false
			}
			seen[v] = struct{}{}
		}
	}
	dict := make([]int64, 0, len(seen))
	for v := range seen {
		dict = append(dict, v)
	}
	slices.Sort(dict)
	return dict, true
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

// sub returns a-b and whether it did not overflow.
func sub(a, b int64) (int64, bool) {
	d := a - b
	return d, (a >= b) == (d >= 0)
}

// putInts appends the smallest encoding of vals at one width policy.
func putInts(dst []byte, vals []int64, aligned bool) []byte {
	s := intStatsOf(vals)
	var dict []int64
	if dictWorthTrying(&s, vals) {
		dict, _ = intDictOf(vals)
	}
	return putIntPlan(dst, vals, bestIntPlan(&s, dict, widthPolicy(aligned)))
}

// putIntPlan appends vals in the planned encoding.
func putIntPlan(dst []byte, vals []int64, p intPlan) []byte {
	dst = slices.Grow(dst, 32+10*len(p.dict)+packedLen(len(vals), p.width))
	dst = append(dst, p.enc)
	packed := getU64s(len(vals))
	defer putU64s(packed)
	switch p.enc {
	case intFOR:
		dst = putVarint(dst, p.base)
		dst = putUvarint(dst, p.gcd)
		if p.width == 0 { // nothing is packed
			break
		}
		for i, v := range vals {
			packed[i] = uint64(v) - uint64(p.base)
		}
		divideAll(packed, p.gcd)
	case intDelta:
		dst = putVarint(dst, vals[0])
		dst = putVarint(dst, p.base)
		dst = putUvarint(dst, p.gcd)
		packed = packed[:len(vals)-1]
		if p.width == 0 { // nothing is packed
			break
		}
		for i := 1; i < len(vals); i++ {
			packed[i-1] = uint64(vals[i]-vals[i-1]) - uint64(p.base)
		}
		divideAll(packed, p.gcd)
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

// divideAll divides every value by g, skipping the common g = 1.
func divideAll(vals []uint64, g uint64) {
	if g <= 1 {
		return
	}
	for i := range vals {
		vals[i] /= g
	}
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
