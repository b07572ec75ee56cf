package agg

import (
	"fmt"
	"math"

	"github.com/aplite/aplite/vector"
)

// avg(x) is the mean of the non-null values of each group, accumulated as
// a float64 sum and a count (so it merges exactly across parallel scans).
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
	return vector.Null, fmt.Errorf("avg: argument 1 must be numeric, datetime or timespan, got %s", t)
}

// avgState keeps a sum and a count per group.
type avgState struct {
	out    vector.Type
	sums   []float64
	counts []int64
}

func (s *avgState) Grow(n int) {
	s.sums = growFloat64(s.sums, n)
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
		avgInto(s.sums, s.counts, v, v.Ints, sel, groups)
	case vector.Dynamic:
		for k, g := range groups {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			if !validAt(v.Valid, r) {
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

func (s *avgState) Merge(other State, into []uint32) {
	o := other.(*avgState)
	for g, dst := range into {
		s.sums[dst] += o.sums[g]
		s.counts[dst] += o.counts[g]
	}
}

func (s *avgState) Result(n int) []*vector.Vector {
	has := make([]bool, n)
	if s.out == vector.Float {
		means := make([]float64, n)
		for g := 0; g < n; g++ {
			if has[g] = s.counts[g] > 0; has[g] {
				means[g] = s.sums[g] / float64(s.counts[g])
			}
		}
		return []*vector.Vector{floatsResult(means, has, n)}
	}
	means := make([]int64, n)
	for g := 0; g < n; g++ {
		if has[g] = s.counts[g] > 0; has[g] {
			means[g] = int64(math.Round(s.sums[g] / float64(s.counts[g])))
		}
	}
	return []*vector.Vector{intsResult(s.out, means, has, n)}
}
