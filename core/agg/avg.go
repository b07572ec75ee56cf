package agg

import (
	"fmt"
	"math/bits"

	"github.com/aplite/aplite/vector"
)

// avg(x) is the mean of the non-null values of each group, accumulated as
// a sum and a count so it merges across parallel scans. Reals sum in
// float64; longs, datetimes and timespans sum exactly in 128 bits, so the
// mean of datetimes (about 1.7e18 ns each) neither overflows nor loses
// nanoseconds.
// It returns real for numbers and keeps the type for datetime and
// timespan (rounded to the nanosecond). A group with no value gives null;
// NaN and ±Inf propagate by IEEE rules.

func init() {
	Register(avgSpec)
	Register(withIf(avgSpec, "avgif", "avgif", -1,
		"Averages the values of the rows for which the predicate is true."))
}

var avgSpec = &Spec{
	Name:    "avg",
	APIName: "avg",
	MinArgs: 1,
	MaxArgs: 1,
	Result: func(args []vector.Type) ([]vector.Type, error) {
		t, err := avgType(args[0])
		return one(t), err
	},
	New: func(_ *Context, args []vector.Type, _ []any) (State, error) {
		t, err := avgType(args[0])
		if err != nil {
			return nil, err
		}
		return &avgState{out: t}, nil
	},
	Doc: "Averages the non-null values of the group.",
}

func avgType(t vector.Type) (vector.Type, error) {
	switch t {
	case vector.Int, vector.Float, vector.Dynamic, vector.Null:
		return vector.Float, nil
	case vector.DateTime, vector.TimeSpan:
		return t, nil
	}
	return vector.Null, fmt.Errorf("argument 1 must be numeric, datetime or timespan, got %s", t)
}

// avgState keeps a sum and a count per group: sums for reals and dynamic
// numbers, the 128-bit hi:lo for int64-backed input.
type avgState struct {
	out    vector.Type
	sums   []float64
	hi     []int64
	lo     []uint64
	counts []int64
}

func (s *avgState) Grow(n int) {
	s.sums = growFloat64(s.sums, n)
	s.hi = growInt64(s.hi, n)
	s.lo = growSlice(s.lo, n)
	s.counts = growInt64(s.counts, n)
}

func (s *avgState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) {
		return
	}
	switch v.Type {
	case vector.Float:
		avgInto(s.sums, s.counts, v, v.Floats, sel, groups)
	case vector.Int, vector.DateTime, vector.TimeSpan:
		avgInts(s.hi, s.lo, s.counts, v, sel, groups)
	case vector.Dynamic:
		if r := v.Reals(); r != nil {
			avgInto(s.sums, s.counts, r, r.Floats, sel, groups)
			return
		}
		for k, g := range groups {
			r, ok := liveRow(v, sel, k)
			if !ok {
				continue
			}
			if x, ok := dynFloat(v.Dyns[r]); ok {
				s.sums[g] += x
				s.counts[g]++
			}
		}
	}
}

// avgInto adds vals (converted to float64) and counts them per group.
func avgInto[T number](sums []float64, counts []int64, v *vector.Vector, vals []T, sel []int32, groups []uint32) {
	if v.Const {
		x := float64(vals[0])
		for _, g := range groups {
			sums[g] += x
			counts[g]++
		}
		return
	}
	valid := v.Valid
	switch {
	case sel == nil && valid == nil:
		vals = vals[:len(groups)]
		if uniform(groups) {
			g := groups[0]
			var a, b float64
			k := 0
			for ; k+2 <= len(vals); k += 2 {
				a += float64(vals[k])
				b += float64(vals[k+1])
			}
			for ; k < len(vals); k++ {
				a += float64(vals[k])
			}
			sums[g] += a + b
			counts[g] += int64(len(vals))
			return
		}
		for k, g := range groups {
			sums[g] += float64(vals[k])
			counts[g]++
		}
	case sel == nil:
		vals = vals[:len(groups)]
		for k, g := range groups {
			if validAt(valid, k) {
				sums[g] += float64(vals[k])
				counts[g]++
			}
		}
	default:
		for k, g := range groups {
			r := sel[k]
			if validAt(valid, int(r)) {
				sums[g] += float64(vals[r])
				counts[g]++
			}
		}
	}
}

// avgInts adds int64 values into 128-bit per-group sums.
func avgInts(hi []int64, lo []uint64, counts []int64, v *vector.Vector, sel []int32, groups []uint32) {
	vals, valid := v.Ints, v.Valid
	for k, g := range groups {
		r := physRow(sel, k)
		if v.Const {
			r = 0
		}
		if !validAt(valid, r) {
			continue
		}
		x := vals[r]
		var carry uint64
		lo[g], carry = bits.Add64(lo[g], uint64(x), 0)
		hi[g] += int64(carry) + x>>63
		counts[g]++
	}
}

func (s *avgState) Merge(other State, into []uint32) {
	o := other.(*avgState)
	for g, dst := range into {
		s.sums[dst] += o.sums[g]
		var carry uint64
		s.lo[dst], carry = bits.Add64(s.lo[dst], o.lo[g], 0)
		s.hi[dst] += o.hi[g] + int64(carry)
		s.counts[dst] += o.counts[g]
	}
}

// intMean divides the 128-bit sum hi:lo by n, returning the quotient
// rounded half away from zero and the exact mean as a float.
func intMean(hi int64, lo uint64, n int64) (int64, float64) {
	neg := hi < 0
	uhi, ulo := uint64(hi), lo
	if neg { // two's complement negate the 128-bit value
		ulo = -lo
		uhi = ^uint64(hi)
		if lo == 0 {
			uhi++
		}
	}
	q1, r1 := bits.Div64(0, uhi, uint64(n))
	q0, r0 := bits.Div64(r1, ulo, uint64(n))
	f := (float64(q1)*(1<<64) + float64(q0)) + float64(r0)/float64(n)
	q := int64(q0)
	if 2*r0 >= uint64(n) {
		q++
	}
	if neg {
		return -q, -f
	}
	return q, f
}

func (s *avgState) Result(n int) []*vector.Vector {
	has := make([]bool, n)
	if s.out == vector.Float {
		means := make([]float64, n)
		for g := 0; g < n; g++ {
			if has[g] = s.counts[g] > 0; !has[g] {
				continue
			}
			if s.hi[g] != 0 || s.lo[g] != 0 {
				// Long input: exact integer sum (sums is unused then).
				_, means[g] = intMean(s.hi[g], s.lo[g], s.counts[g])
			} else {
				means[g] = s.sums[g] / float64(s.counts[g])
			}
		}
		return []*vector.Vector{floatsResult(means, has, n)}
	}
	means := make([]int64, n)
	for g := 0; g < n; g++ {
		if has[g] = s.counts[g] > 0; has[g] {
			means[g], _ = intMean(s.hi[g], s.lo[g], s.counts[g])
		}
	}
	return []*vector.Vector{intsResult(s.out, means, has, n)}
}
