package agg

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

// sum(x) adds the non-null values of each group. Longs and timespans are
// summed exactly in int64 (wrapping on overflow, as APL's long does);
// reals are summed in float64 in row order, so NaN and ±Inf follow IEEE
// rules (a NaN anywhere, or +Inf and -Inf together, give NaN). A group
// whose values are all null sums to null. Dynamic values are summed as
// reals, skipping those that are not numbers.

func init() {
	Register(sumSpec)
	Register(withIf(sumSpec, "sumif", "sumif", -1,
		"Sums the values of the rows for which the predicate is true."))
}

var sumSpec = &Spec{
	Name:    "sum",
	APIName: "sum",
	MinArgs: 1,
	MaxArgs: 1,
	Result: func(args []vector.Type) ([]vector.Type, error) {
		t, err := sumType(args[0])
		return one(t), err
	},
	New: func(_ *Context, args []vector.Type, _ []any) (State, error) {
		t, err := sumType(args[0])
		if err != nil {
			return nil, err
		}
		return &sumState{in: args[0], out: t}, nil
	},
	Doc: "Sums the non-null values of the group.",
}

// sumType is the result type of sum over values of type t.
func sumType(t vector.Type) (vector.Type, error) {
	switch t {
	case vector.Int, vector.Null:
		return vector.Int, nil
	case vector.TimeSpan:
		return vector.TimeSpan, nil
	case vector.Float, vector.Dynamic:
		return vector.Float, nil
	}
	return vector.Null, fmt.Errorf("argument 1 must be numeric or timespan, got %s", t)
}

// number is the payload of the vectors the numeric kernels run over.
type number interface{ ~int64 | ~float64 }

// sumState holds one running sum per group; ints or floats is used,
// chosen by the result type.
type sumState struct {
	in, out vector.Type
	ints    []int64
	floats  []float64
	has     []bool
}

func (s *sumState) Grow(n int) {
	if s.out == vector.Float {
		s.floats = growFloat64(s.floats, n)
	} else {
		s.ints = growInt64(s.ints, n)
	}
	s.has = growBool(s.has, n)
}

func (s *sumState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) {
		return
	}
	switch v.Type {
	case vector.Int, vector.TimeSpan:
		sumInto(s.ints, s.has, v, v.Ints, sel, groups)
	case vector.Float:
		sumInto(s.floats, s.has, v, v.Floats, sel, groups)
	case vector.Dynamic:
		if r := v.Reals(); r != nil {
			sumInto(s.floats, s.has, r, r.Floats, sel, groups)
			return
		}
		for k, g := range groups {
			r, ok := liveRow(v, sel, k)
			if !ok {
				continue
			}
			if x, ok := dynFloat(v.Dyns[r]); ok {
				s.floats[g] += x
				s.has[g] = true
			}
		}
	}
}

// sumInto adds vals (the payload of v) into sums. It is the hot loop of
// sum, avg's numerator and rate: one pass per batch, specialised for a
// constant, for a dense batch without nulls, and for a selection.
func sumInto[T number](sums []T, has []bool, v *vector.Vector, vals []T, sel []int32, groups []uint32) {
	if v.Const {
		x := vals[0]
		for _, g := range groups {
			sums[g] += x
			has[g] = true
		}
		return
	}
	valid := v.Valid
	switch {
	case sel == nil && valid == nil:
		vals = vals[:len(groups)]
		if uniform(groups) {
			// One group for the whole batch (a summarize without by, or a
			// batch inside one time bin): sum in four independent lanes,
			// then touch the group once.
			g := groups[0]
			sums[g] += sum4(vals)
			has[g] = true
			return
		}
		for k, g := range groups {
			sums[g] += vals[k]
			has[g] = true
		}
	case sel == nil:
		vals = vals[:len(groups)]
		for k, g := range groups {
			if validAt(valid, k) {
				sums[g] += vals[k]
				has[g] = true
			}
		}
	default:
		for k, g := range groups {
			r := sel[k]
			if validAt(valid, int(r)) {
				sums[g] += vals[r]
				has[g] = true
			}
		}
	}
}

// uniform reports whether every row of the batch is in one group. On
// mixed batches it returns at the first difference, so it is nearly free.
func uniform(groups []uint32) bool {
	if len(groups) < 64 {
		return false
	}
	g := groups[0]
	for _, h := range groups {
		if h != g {
			return false
		}
	}
	return true
}

// sum4 adds vals with four accumulators, which breaks the add-latency
// chain of a single running sum.
func sum4[T number](vals []T) T {
	var a, b, c, d T
	k := 0
	for ; k+4 <= len(vals); k += 4 {
		a += vals[k]
		b += vals[k+1]
		c += vals[k+2]
		d += vals[k+3]
	}
	for ; k < len(vals); k++ {
		a += vals[k]
	}
	return (a + b) + (c + d)
}

func (s *sumState) Merge(other State, into []uint32) {
	o := other.(*sumState)
	for g, dst := range into {
		if !o.has[g] {
			continue
		}
		if s.out == vector.Float {
			s.floats[dst] += o.floats[g]
		} else {
			s.ints[dst] += o.ints[g]
		}
		s.has[dst] = true
	}
}

func (s *sumState) Result(n int) []*vector.Vector {
	if s.out == vector.Float {
		return []*vector.Vector{floatsResult(s.floats, s.has, n)}
	}
	return []*vector.Vector{intsResult(s.out, s.ints, s.has, n)}
}
