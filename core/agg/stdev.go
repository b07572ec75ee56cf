package agg

import (
	"fmt"
	"math"

	"github.com/aplite/aplite/vector"
)

// variance(x) and stdev(x) are the sample variance (divided by n-1) and
// its square root over the non-null values of each group, as in APL. One
// value gives 0 and no value gives null. The state is Welford's running
// mean and sum of squared deviations, which stays accurate when the mean
// is large against the spread, and merges exactly by Chan's formula. NaN
// or ±Inf among the values make the result NaN.
//
// Over timespans (span durations) they work on nanoseconds: stdev keeps
// the timespan type, as avg does, since a deviation is in the unit of its
// values; variance is a real in squared nanoseconds, a unit no timespan
// can hold. Kusto's pages say no more than "the expression"; this is the
// reading that keeps stdev(duration) comparable with avg(duration).

func init() {
	Register(varSpec("variance", false))
	Register(varSpec("stdev", true))
	Register(withIf(varSpec("variance", false), "varianceif", "varianceif", -1,
		"Sample variance of the values of the rows for which the predicate is true."))
	Register(withIf(varSpec("stdev", true), "stdevif", "stdevif", -1,
		"Sample standard deviation of the values of the rows for which the predicate is true."))
}

func varSpec(name string, sqrt bool) *Spec {
	doc := "Sample variance (n-1) of the non-null values of the group."
	if sqrt {
		doc = "Sample standard deviation (n-1) of the non-null values of the group."
	}
	return &Spec{
		Name:    name,
		APIName: name,
		MinArgs: 1,
		MaxArgs: 1,
		Result: func(args []vector.Type) ([]vector.Type, error) {
			t, err := varType(args[0], sqrt)
			return one(t), err
		},
		New: func(_ *Context, args []vector.Type, _ []any) (State, error) {
			t, err := varType(args[0], sqrt)
			if err != nil {
				return nil, err
			}
			return &varState{sqrt: sqrt, out: t}, nil
		},
		Doc: doc,
	}
}

// varType is the result type: real, or timespan for stdev of timespans.
func varType(t vector.Type, sqrt bool) (vector.Type, error) {
	if t == vector.TimeSpan {
		if sqrt {
			return vector.TimeSpan, nil
		}
		return vector.Float, nil
	}
	switch t {
	case vector.Int, vector.Float, vector.Dynamic, vector.Null:
		return vector.Float, nil
	}
	return vector.Float, fmt.Errorf("argument 1 must be numeric or timespan, got %s", t)
}

// varState is Welford's accumulator per group.
type varState struct {
	sqrt bool
	out  vector.Type
	n    []int64
	mean []float64
	m2   []float64
	// batch is the scratch of shiftedMoments, kept across batches.
	batch momentScratch
}

func (s *varState) Grow(n int) {
	s.n = growInt64(s.n, n)
	s.mean = growFloat64(s.mean, n)
	s.m2 = growFloat64(s.m2, n)
}

func (s *varState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) {
		return
	}
	switch v.Type {
	case vector.Float:
		if !v.Const && v.Valid == nil && sel == nil && len(groups) >= shiftedMinRows && len(s.n)*shiftedRowsPerGroup <= len(groups) {
			s.shiftedMoments(v.Floats[:len(groups)], groups)
			return
		}
		welford(s, v, v.Floats, sel, groups)
	case vector.Int, vector.TimeSpan:
		welford(s, v, v.Ints, sel, groups)
	case vector.Dynamic:
		for k, g := range groups {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			if validAt(v.Valid, r) {
				if x, ok := dynFloat(v.Dyns[r]); ok {
					s.add(g, x)
				}
			}
		}
	}
}

// welford folds vals into the per-group accumulators.
func welford[T number](s *varState, v *vector.Vector, vals []T, sel []int32, groups []uint32) {
	n, mean, m2, valid := s.n, s.mean, s.m2, v.Valid
	for k, g := range groups {
		r := physRow(sel, k)
		if v.Const {
			r = 0
		}
		if !validAt(valid, r) {
			continue
		}
		x := float64(vals[r])
		n[g]++
		d := x - mean[g]
		mean[g] += d / float64(n[g])
		m2[g] += d * (x - mean[g])
	}
}

func (s *varState) add(g uint32, x float64) {
	s.n[g]++
	d := x - s.mean[g]
	s.mean[g] += d / float64(s.n[g])
	s.m2[g] += d * (x - s.mean[g])
}

func (s *varState) Merge(other State, into []uint32) {
	o := other.(*varState)
	for g, dst := range into {
		nb := o.n[g]
		if nb == 0 {
			continue
		}
		na := s.n[dst]
		if na == 0 {
			s.n[dst], s.mean[dst], s.m2[dst] = nb, o.mean[g], o.m2[g]
			continue
		}
		n := na + nb
		d := o.mean[g] - s.mean[dst]
		s.mean[dst] += d * float64(nb) / float64(n)
		s.m2[dst] += o.m2[g] + d*d*float64(na)*float64(nb)/float64(n)
		s.n[dst] = n
	}
}

func (s *varState) Result(n int) []*vector.Vector {
	vals := make([]float64, n)
	has := make([]bool, n)
	for g := 0; g < n; g++ {
		switch c := s.n[g]; {
		case c == 0:
		case c == 1:
			// One value has no spread; m2 is NaN only if the value was.
			vals[g], has[g] = s.m2[g], true
		default:
			vals[g], has[g] = s.m2[g]/float64(c-1), true
		}
		if has[g] && s.sqrt {
			vals[g] = math.Sqrt(vals[g])
		}
	}
	if s.out == vector.TimeSpan {
		return []*vector.Vector{intsResult(vector.TimeSpan, roundNanos(vals, has), has, n)}
	}
	return []*vector.Vector{floatsResult(vals, has, n)}
}

// roundNanos rounds reals to whole nanoseconds; a NaN becomes null.
func roundNanos(vals []float64, has []bool) []int64 {
	out := make([]int64, len(vals))
	for g, x := range vals {
		if x != x || math.IsInf(x, 0) {
			has[g] = false
			continue
		}
		out[g] = int64(math.Round(x))
	}
	return out
}
