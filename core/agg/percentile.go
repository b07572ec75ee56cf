package agg

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aplite/aplite/vector"
)

// percentile(x, p) returns the p-th percentile (0 ≤ p ≤ 100) of the
// non-null values of each group by KQL's nearest-rank definition: the
// value of rank ceil(p/100·n) in ascending order, so the result is always
// one of the values. It is exact while a group has at most 1024 values or
// the whole aggregation holds at most 1Mi values (large groups are answered
// by quickselect); beyond that a group is a DDSketch, within 1% error of
// a value of the right rank (Axiom documents "a maximum error of 1%").
// Percentile 0 and 100 are the exact minimum and maximum in both modes.
// Measured by TestPercentileSketchError on 200,000 values, the worst
// relative error over p0..p100 was 0.99% (lognormal), 0.91% (uniform)
// and 0.90% (normal around 0).
// The result keeps the input type (long, real, datetime, timespan); NaN
// is ignored like null and ±Inf are ordinary extreme values.
//
// percentiles_array(x, p1, p2, ...) or percentiles_array(x, dynamic([p1,
// ...])) returns the percentiles as one dynamic array; percentileif and
// percentiles_arrayif take a trailing predicate.

// maxPercentiles bounds how many percentiles one percentiles_array call
// may ask for, so that ConstArgs can list their positions.
const maxPercentiles = 32

func init() {
	Register(percentileSpec)
	Register(withIf(percentileSpec, "percentileif", "percentilesif", -1,
		"Returns a percentile of the values of the rows for which the predicate is true."))
	Register(pctArraySpec)
	arrayIf := withIf(pctArraySpec, "percentiles_arrayif", "percentilesif", -1,
		"Returns percentiles, as an array, of the values of the rows for which the predicate is true.")
	// Axiom's form is percentiles_arrayif(x, dynamic([p, ...]), pred).
	arrayIf.MinArgs, arrayIf.MaxArgs, arrayIf.ConstArgs = 3, 3, []int{1}
	Register(arrayIf)
}

var percentileSpec = &Spec{
	Name:      "percentile",
	APIName:   "percentiles",
	MinArgs:   2,
	MaxArgs:   2,
	ConstArgs: []int{1},
	Result: func(args []vector.Type) ([]vector.Type, error) {
		t, err := pctType(args[0])
		return one(t), err
	},
	New: func(ctx *Context, args []vector.Type, consts []any) (State, error) {
		return newPct(ctx, args, consts, false)
	},
	Doc: "Returns the p-th percentile (nearest rank) of the group's values; exact while the query holds under 1Mi values (or 1024 per group), else within 1%.",
}

var pctArraySpec = &Spec{
	Name:      "percentiles_array",
	APIName:   "percentiles",
	MinArgs:   2,
	MaxArgs:   1 + maxPercentiles,
	ConstArgs: pctPositions(),
	Result: func(args []vector.Type) ([]vector.Type, error) {
		_, err := pctType(args[0])
		return one(vector.Dynamic), err
	},
	New: func(ctx *Context, args []vector.Type, consts []any) (State, error) {
		return newPct(ctx, args, consts, true)
	},
	Doc: "Returns several percentiles of the group's values as a dynamic array.",
}

func pctPositions() []int {
	out := make([]int, maxPercentiles)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

func pctType(t vector.Type) (vector.Type, error) {
	switch t {
	case vector.Int, vector.Float, vector.DateTime, vector.TimeSpan:
		return t, nil
	case vector.Null, vector.Dynamic:
		return vector.Float, nil
	}
	return vector.Null, fmt.Errorf("argument 1 must be numeric, datetime, timespan or dynamic, got %s", t)
}

// pctArgs reads the percentiles from the constant arguments: numbers, or
// one dynamic array of numbers.
func pctArgs(consts []any) ([]float64, error) {
	var ps []float64
	for i := 1; i < len(consts); i++ {
		if arr, ok := consts[i].([]any); ok {
			for _, e := range arr {
				p, err := constFloat(i, e)
				if err != nil {
					return nil, err
				}
				ps = append(ps, p)
			}
			continue
		}
		p, err := constFloat(i, consts[i])
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return nil, errors.New("no percentile given")
	}
	for _, p := range ps {
		if !(p >= 0 && p <= 100) {
			return nil, fmt.Errorf("percentile must be between 0 and 100, got %v", p)
		}
	}
	return ps, nil
}

func newPct(ctx *Context, args []vector.Type, consts []any, array bool) (State, error) {
	if _, err := pctType(args[0]); err != nil {
		return nil, err
	}
	ps, err := pctArgs(consts)
	if err != nil {
		return nil, err
	}
	if t := args[0]; t == vector.Float || t == vector.Null || t == vector.Dynamic {
		if t == vector.Dynamic {
			t = vector.Float // dynamic values are read as reals (Update)
		}
		return &pctState[float64]{quantState: quantState[float64]{t: t}, ps: ps, array: array}, nil
	}
	q := quantState[int64]{t: args[0]}
	if args[0] == vector.DateTime && ctx != nil && !ctx.Start.IsZero() {
		q.base = float64(ctx.Start.UnixNano())
	}
	return &pctState[int64]{quantState: q, ps: ps, array: array}, nil
}

// pctState answers percentile and percentiles_array from a quantState.
type pctState[T number] struct {
	quantState[T]
	ps    []float64
	array bool
}

func (s *pctState[T]) Grow(n int) { s.grow(n) }

func (s *pctState[T]) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if v.Type == vector.Dynamic {
		v = dynToFloats(v, sel)
	}
	if allNull(v) || v.Type != s.t {
		return
	}
	// T is float64 exactly when the input is real (newPct).
	if v.Type == vector.Float {
		s.update(v, any(v.Floats).([]T), sel, groups)
		return
	}
	s.update(v, any(v.Ints).([]T), sel, groups)
}

func (s *pctState[T]) Merge(other State, into []uint32) {
	s.merge(&other.(*pctState[T]).quantState, into)
}

func (s *pctState[T]) Result(n int) []*vector.Vector {
	answers := s.answers(n)
	if s.array {
		out := make([]any, n)
		for g, a := range answers {
			if a == nil {
				continue
			}
			arr := make([]any, len(a))
			for i, x := range a {
				arr[i] = s.box(x)
			}
			out[g] = arr
		}
		return []*vector.Vector{dynResult(out, n)}
	}
	t := s.t
	if t == vector.Null {
		t = vector.Float
	}
	out := vector.New(t, n)
	for _, a := range answers {
		if a == nil {
			out.AppendNull()
			continue
		}
		switch x := any(a[0]).(type) {
		case float64:
			out.AppendFloat(x)
		case int64:
			out.AppendInt(x)
		}
	}
	return []*vector.Vector{out}
}

// answers computes every group's percentiles (nil for an empty group).
// Groups are independent, so large ones are selected in parallel: the
// final selection is the one serial step of a percentile summarize.
func (s *pctState[T]) answers(n int) [][]T {
	out := make([][]T, n)
	one := func(g int) {
		if s.count(g) == 0 {
			return
		}
		s.sorted(g)
		a := make([]T, len(s.ps))
		for i, p := range s.ps {
			a[i] = s.quantile(g, p)
		}
		out[g] = a
	}
	total := 0
	for g := 0; g < n && g < len(s.groups); g++ {
		total += s.groups[g].n
	}
	workers := runtime.GOMAXPROCS(0)
	if n < 2 || workers < 2 || total < 1<<16 {
		for g := 0; g < n; g++ {
			one(g)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := int(next.Add(1) - 1); g < n; g = int(next.Add(1) - 1) {
				one(g)
			}
		}()
	}
	wg.Wait()
	return out
}

// box converts a percentile to the element a dynamic array holds.
func (s *pctState[T]) box(x T) any {
	switch v := any(x).(type) {
	case int64:
		return boxInt(s.t, v)
	case float64:
		return v
	}
	return nil
}
