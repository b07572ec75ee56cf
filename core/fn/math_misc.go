package fn

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/aplite/aplite/vector"
)

// Sign-preserving and type-preserving math: abs, sign, round, min_of,
// max_of; predicates isnan/isinf/isfinite/isint; not; rand.

func init() {
	Register(&Func{Name: "abs", Family: famMath, MinArgs: 1, MaxArgs: 1,
		Result: sameNumeric("abs", Of(vector.Int, vector.Float, vector.TimeSpan)), Eval: evalAbs,
		Doc: "Absolute value; longs, reals and timespans keep their type."})
	Register(&Func{Name: "sign", Family: famMath, MinArgs: 1, MaxArgs: 1,
		Result: sameNumeric("sign", KNum), Eval: evalSign,
		Doc: "-1, 0 or 1 by the sign of the argument, in its type."})
	Register(&Func{Name: "round", Family: famMath, MinArgs: 1, MaxArgs: 2,
		Result: roundRule, Eval: evalRound,
		Doc: "round(x[, digits]): x rounded half away from zero to digits decimals (negative digits round to tens, hundreds...)."})
	Register(&Func{Name: "max_of", Family: famMath, MinArgs: 1, MaxArgs: 64,
		Result: extremeResult("max_of"), Eval: extremeEval(1),
		Doc: "The largest argument, ignoring nulls."})
	Register(&Func{Name: "min_of", Family: famMath, MinArgs: 1, MaxArgs: 64,
		Result: extremeResult("min_of"), Eval: extremeEval(-1),
		Doc: "The smallest argument, ignoring nulls."})
	preds := []struct {
		name string
		f    func(float64) bool
		doc  string
	}{
		{"isnan", math.IsNaN, "True when the real is NaN."},
		{"isinf", func(x float64) bool { return math.IsInf(x, 0) }, "True when the real is +Infinity or -Infinity."},
		{"isfinite", func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }, "True when the real is neither infinite nor NaN."},
		{"isint", func(x float64) bool { return !math.IsInf(x, 0) && x == math.Trunc(x) }, "True when the number has no fractional part (false for NaN and infinities)."},
	}
	for _, p := range preds {
		f := p.f
		Register(&Func{Name: p.name, Family: famMath, MinArgs: 1, MaxArgs: 1,
			Result: Sig(p.name, vector.Bool, KNum),
			Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
				return Unary(vector.Bool, args[0], n, ToFloat, func(x float64) (bool, bool) { return f(x), true }), nil
			},
			Doc: p.doc})
	}
	Register(&Func{Name: "not", Family: famMath, MinArgs: 1, MaxArgs: 1,
		Result: Sig("not", vector.Bool, KBool),
		Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
			return Unary(vector.Bool, args[0], n, ToBool, func(b bool) (bool, bool) { return !b, true }), nil
		},
		Doc: "Logical negation; not(null) is null."})
	Register(&Func{Name: "rand", Family: famMath, MinArgs: 0, MaxArgs: 1, Volatile: true,
		Result: randResult, Eval: evalRand,
		Doc: "rand(): a random real in [0, 1); rand(n): a random long in [0, n)."})
}

// sameNumeric is a Result rule for functions that return their argument's
// type.
func sameNumeric(name string, k Kind) func([]vector.Type) (vector.Type, error) {
	return func(args []vector.Type) (vector.Type, error) {
		if err := CheckArgs(name, args, k); err != nil {
			return vector.Null, err
		}
		if args[0] == vector.Dynamic || args[0] == vector.Null {
			return vector.Float, nil
		}
		return args[0], nil
	}
}

func evalAbs(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	if a.Type == vector.Int || a.Type == vector.TimeSpan {
		return Unary(a.Type, a, n, ToInt, func(x int64) (int64, bool) {
			if x < 0 {
				return -x, x != math.MinInt64
			}
			return x, true
		}), nil
	}
	return floatMap(a, n, math.Abs), nil
}

func evalSign(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	if a.Type == vector.Int {
		return Unary(vector.Int, a, n, ToInt, func(x int64) (int64, bool) {
			switch {
			case x > 0:
				return 1, true
			case x < 0:
				return -1, true
			}
			return 0, true
		}), nil
	}
	return Unary(vector.Float, a, n, ToFloat, func(x float64) (float64, bool) {
		switch {
		case x > 0:
			return 1, true
		case x < 0:
			return -1, true
		}
		return x, true // 0, -0 and NaN stay as they are
	}), nil
}

func roundRule(args []vector.Type) (vector.Type, error) {
	if err := CheckArgs("round", args, KNum, KInt); err != nil {
		return vector.Null, err
	}
	if args[0] == vector.Int {
		return vector.Int, nil
	}
	return vector.Float, nil
}

func evalRound(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	digits := func(i int) (int64, bool) { return optInt(args, 1, i, 0) }
	if args[0].Type == vector.Int {
		return Each(vector.Int, args, n, func(i int) (int64, bool) {
			x, ok1 := ToInt(args[0], i)
			k, ok2 := digits(i)
			if !ok1 || !ok2 {
				return 0, false
			}
			if k >= 0 {
				return x, true
			}
			return FloatToInt(roundDigits(float64(x), k))
		}), nil
	}
	return Each(vector.Float, args, n, func(i int) (float64, bool) {
		x, ok1 := ToFloat(args[0], i)
		k, ok2 := digits(i)
		if !ok1 || !ok2 {
			return 0, false
		}
		return roundDigits(x, k), true
	}), nil
}

// roundDigits rounds half away from zero at 10^-k.
func roundDigits(x float64, k int64) float64 {
	if k == 0 {
		return math.Round(x)
	}
	k = max(min(k, 308), -308)
	p := math.Pow(10, float64(k))
	r := math.Round(x*p) / p
	if math.IsInf(x*p, 0) {
		return x
	}
	return r
}

// extremeResult types min_of/max_of: the arguments' common type, which
// must be ordered (numbers, strings, datetimes, timespans).
func extremeResult(name string) func([]vector.Type) (vector.Type, error) {
	return func(args []vector.Type) (vector.Type, error) {
		if err := CheckArgs(name, args, Of(vector.Int, vector.Float, vector.String, vector.DateTime, vector.TimeSpan)); err != nil {
			return vector.Null, err
		}
		t := commonType(args)
		if t == vector.Null {
			t = vector.Float
		}
		return t, nil
	}
}

// extremeEval builds max_of (dir 1) and min_of (dir -1).
func extremeEval(dir int) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		types := make([]vector.Type, len(args))
		for i, a := range args {
			types[i] = a.Type
		}
		t := commonType(types)
		switch t {
		case vector.Int, vector.DateTime, vector.TimeSpan:
			return Each(t, args, n, func(i int) (int64, bool) { return pickInt(args, i, dir) }), nil
		case vector.String:
			return Each(t, args, n, func(i int) (string, bool) { return pickStr(args, i, dir) }), nil
		}
		return Each(vector.Float, args, n, func(i int) (float64, bool) { return pickFloat(args, i, dir) }), nil
	}
}

func pickInt(args []*vector.Vector, i, dir int) (int64, bool) {
	var best int64
	found := false
	for _, a := range args {
		if x, ok := ToInt(a, i); ok && (!found || (dir > 0 && x > best) || (dir < 0 && x < best)) {
			best, found = x, true
		}
	}
	return best, found
}

func pickFloat(args []*vector.Vector, i, dir int) (float64, bool) {
	var best float64
	found := false
	for _, a := range args {
		x, ok := ToFloat(a, i)
		if !ok || math.IsNaN(x) {
			continue
		}
		if !found || (dir > 0 && x > best) || (dir < 0 && x < best) {
			best, found = x, true
		}
	}
	return best, found
}

func pickStr(args []*vector.Vector, i, dir int) (string, bool) {
	var best string
	found := false
	for _, a := range args {
		if x, ok := ToString(a, i); ok && (!found || strings.Compare(x, best) == dir) {
			best, found = x, true
		}
	}
	return best, found
}

func randResult(args []vector.Type) (vector.Type, error) {
	if err := CheckArgs("rand", args, KInt); err != nil {
		return vector.Null, err
	}
	if len(args) == 1 {
		return vector.Int, nil
	}
	return vector.Float, nil
}

// randCalls makes each rand() evaluation draw a fresh stream: every batch
// of a query gets different numbers, all derived from the query's seed.
var randCalls atomic.Uint64

func evalRand(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	r := rand.New(rand.NewPCG(ctx.Rand, randCalls.Add(1)))
	if len(args) == 0 {
		out := make([]float64, n.N)
		for i := range n.Live() {
			out[i] = r.Float64()
		}
		return &vector.Vector{Type: vector.Float, Len: n.N, Floats: out}, nil
	}
	a := args[0]
	return AppendLive(vector.Int, n, func(out *vector.Vector, i int) {
		k, ok := ToInt(a, i)
		if !ok || k <= 0 {
			out.AppendNull()
			return
		}
		out.AppendInt(r.Int64N(k))
	}), nil
}
