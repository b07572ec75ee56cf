package agg

import (
	"math"

	"github.com/aplite/aplite/vector"
)

// variance(x) and stdev(x) are the sample variance (divided by n-1) and
// its square root over the non-null values of each group, as in APL. One
// value gives 0 and no value gives null. The state is Welford's running
// mean and sum of squared deviations, which stays accurate when the mean
// is large against the spread, and merges exactly by Chan's formula. NaN
// or ±Inf among the values make the result NaN.

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
			return one(vector.Float), wantNumeric(name, args[0])
		},
		New: func(_ *Context, args []vector.Type, _ []any) (State, error) {
			if err := wantNumeric(name, args[0]); err != nil {
				return nil, err
			}
			return &varState{sqrt: sqrt}, nil
		},
		Doc: doc,
	}
}

// varState is Welford's accumulator per group.
type varState struct {
	sqrt bool
	n    []int64
	mean []float64
	m2   []float64
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
		welford(s, v, v.Floats, sel, groups)
	case vector.Int:
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
	return []*vector.Vector{floatsResult(vals, has, n)}
}
