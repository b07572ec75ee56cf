package agg

import (
	"math"
)

// ddsketch is a DDSketch (Masson, Rim, Lee: "DDSketch: a fast and fully
// mergeable quantile sketch with relative-error guarantees", VLDB 2019):
// values are counted in logarithmic buckets of ratio gamma, so any
// quantile it returns is within ddAlpha (1%) relative error of a value of
// exactly that rank, whatever the distribution, and two sketches merge
// exactly by adding bucket counts. Axiom documents its percentiles as
// estimates with a maximum error of 1%, which this matches.
//
// Magnitudes below ddMinValue count as zero; ±Inf are counted apart so
// they come back as ±Inf; NaN is not added (callers skip it). It also
// tracks the exact minimum and maximum, which percentile 0 and 100 and
// histogram bounds return without error.
type ddsketch struct {
	pos, neg       ddBins
	zero           uint64
	posInf, negInf uint64
	n              uint64
	min, max       float64
}

const (
	ddAlpha    = 0.01
	ddMinValue = 1e-9
)

var (
	ddGamma    = (1 + ddAlpha) / (1 - ddAlpha)
	ddInvLnGam = 1 / math.Log(ddGamma)
)

// ddBins is a dense run of bucket counts starting at bucket index off.
type ddBins struct {
	off    int32
	counts []uint64
}

func (b *ddBins) add(i int32, c uint64) {
	if len(b.counts) == 0 {
		b.off = i
		b.counts = append(b.counts[:0], c)
		return
	}
	if i < b.off {
		grow := int(b.off - i)
		nc := make([]uint64, len(b.counts)+grow, len(b.counts)+grow+len(b.counts)/2)
		copy(nc[grow:], b.counts)
		b.counts, b.off = nc, i
	} else if j := int(i - b.off); j >= len(b.counts) {
		b.counts = append(b.counts, make([]uint64, j+1-len(b.counts))...)
	}
	b.counts[i-b.off] += c
}

// The index mapping interpolates log2 linearly between powers of two
// (DDSketch's "linearly interpolated mapping"): approxLog2 reads the
// exponent and mantissa bits instead of calling math.Log, which made the
// logarithm the cost of every sketched value. Its slope against the true
// log2 is m·ln2 ≤ 1/ln2 at worst, so with the multiplier 1/ln(gamma) a
// bucket still spans at most a factor gamma and the representative value
// stays within ddAlpha of every value in it.
func approxLog2(x float64) float64 {
	b := math.Float64bits(x)
	e := int64(b>>52&0x7ff) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // in [1, 2)
	return float64(e) + (m - 1)
}

// invApproxLog2 inverts approxLog2.
func invApproxLog2(l float64) float64 {
	e := math.Floor(l)
	return math.Ldexp(1+(l-e), int(e))
}

func ddIndex(x float64) int32 { return int32(math.Ceil(approxLog2(x) * ddInvLnGam)) }

// ddValue is the representative value of bucket i: the harmonic mean of
// its bounds, whose relative distance to both is at most ddAlpha.
func ddValue(i int32) float64 {
	lo := invApproxLog2(float64(i-1) / ddInvLnGam)
	hi := invApproxLog2(float64(i) / ddInvLnGam)
	return 2 * lo * hi / (lo + hi)
}

func (s *ddsketch) add(x float64) {
	if s.n == 0 || x < s.min {
		s.min = x
	}
	if s.n == 0 || x > s.max {
		s.max = x
	}
	s.n++
	switch {
	case x > ddMinValue:
		if math.IsInf(x, 1) {
			s.posInf++
			return
		}
		s.pos.add(ddIndex(x), 1)
	case x < -ddMinValue:
		if math.IsInf(x, -1) {
			s.negInf++
			return
		}
		s.neg.add(ddIndex(-x), 1)
	default:
		s.zero++
	}
}

func (s *ddsketch) merge(o *ddsketch) {
	if o.n == 0 {
		return
	}
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	if s.n == 0 || o.max > s.max {
		s.max = o.max
	}
	s.n += o.n
	s.zero += o.zero
	s.posInf += o.posInf
	s.negInf += o.negInf
	for j, c := range o.pos.counts {
		if c != 0 {
			s.pos.add(o.pos.off+int32(j), c)
		}
	}
	for j, c := range o.neg.counts {
		if c != 0 {
			s.neg.add(o.neg.off+int32(j), c)
		}
	}
}

// quantile returns the value of nearest rank `rank` (1-based).
func (s *ddsketch) quantile(rank uint64) float64 {
	if rank <= 1 {
		return s.min
	}
	if rank >= s.n {
		return s.max
	}
	v := s.walk(func(seen uint64, _, _ float64) bool { return seen >= rank })
	return math.Min(math.Max(v, s.min), s.max)
}

// walk visits the buckets in ascending value order with the running count
// and the bucket's value range, and returns the representative value of
// the first bucket for which stop is true.
func (s *ddsketch) walk(stop func(seen uint64, lo, hi float64) bool) float64 {
	seen := s.negInf
	if seen > 0 && stop(seen, math.Inf(-1), math.Inf(-1)) {
		return math.Inf(-1)
	}
	for j := len(s.neg.counts) - 1; j >= 0; j-- {
		if c := s.neg.counts[j]; c != 0 {
			seen += c
			v := -ddValue(s.neg.off + int32(j))
			if stop(seen, v, v) {
				return v
			}
		}
	}
	if s.zero > 0 {
		seen += s.zero
		if stop(seen, 0, 0) {
			return 0
		}
	}
	for j, c := range s.pos.counts {
		if c != 0 {
			seen += c
			v := ddValue(s.pos.off + int32(j))
			if stop(seen, v, v) {
				return v
			}
		}
	}
	return math.Inf(1)
}

// buckets calls f with each bucket's representative value and count in
// ascending order (histogram uses it).
func (s *ddsketch) buckets(f func(v float64, c uint64)) {
	if s.negInf > 0 {
		f(math.Inf(-1), s.negInf)
	}
	for j := len(s.neg.counts) - 1; j >= 0; j-- {
		if c := s.neg.counts[j]; c != 0 {
			f(-ddValue(s.neg.off+int32(j)), c)
		}
	}
	if s.zero > 0 {
		f(0, s.zero)
	}
	for j, c := range s.pos.counts {
		if c != 0 {
			f(ddValue(s.pos.off+int32(j)), c)
		}
	}
	if s.posInf > 0 {
		f(math.Inf(1), s.posInf)
	}
}
