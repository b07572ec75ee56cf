package agg

import (
	"github.com/aplite/aplite/vector"
)

// rate(x) is the per-second rate of x: the sum of x over the group
// divided by the length in seconds of the time bin the group belongs to
// (summarize ... by bin(_time, 1m) divides by 60), or of the whole query
// time range when the summarize has no time bin. It is null when neither
// is known (an unbounded query without a bin) and for groups without
// values.

func init() { Register(rateSpec) }

var rateSpec = &Spec{
	Name:    "rate",
	APIName: "rate",
	MinArgs: 1,
	MaxArgs: 1,
	Result: func(args []vector.Type) ([]vector.Type, error) {
		_, err := sumType(args[0])
		return one(vector.Float), err
	},
	New: func(ctx *Context, args []vector.Type, _ []any) (State, error) {
		t, err := sumType(args[0])
		if err != nil {
			return nil, err
		}
		var secs float64
		if ctx != nil {
			switch {
			case ctx.BinSize > 0:
				secs = float64(ctx.BinSize) / 1e9
			case !ctx.Start.IsZero() && ctx.End.After(ctx.Start):
				secs = ctx.End.Sub(ctx.Start).Seconds()
			}
		}
		return &rateState{sum: sumState{in: args[0], out: t}, secs: secs}, nil
	},
	Doc: "Sum of the values per second of the time bin, or of the query range without a bin.",
}

type rateState struct {
	sum  sumState
	secs float64
}

func (s *rateState) Grow(n int) { s.sum.Grow(n) }

func (s *rateState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	s.sum.Update(args, sel, groups)
}

func (s *rateState) Merge(other State, into []uint32) {
	s.sum.Merge(&other.(*rateState).sum, into)
}

func (s *rateState) Result(n int) []*vector.Vector {
	vals := make([]float64, n)
	has := make([]bool, n)
	for g := 0; g < n; g++ {
		if !s.sum.has[g] || s.secs <= 0 {
			continue
		}
		x := 0.0
		if s.sum.out == vector.Float {
			x = s.sum.floats[g]
		} else {
			x = float64(s.sum.ints[g])
		}
		vals[g], has[g] = x/s.secs, true
	}
	return []*vector.Vector{floatsResult(vals, has, n)}
}
