package fn

import (
	"fmt"
	"math"
	"time"

	"github.com/aplite/aplite/vector"
)

// Rounding: bin (alias floor with two arguments), bin_auto, floor and
// ceiling. bin rounds down to a multiple of the bin size, counted from 0
// for numbers and timespans and from the Unix epoch for datetimes.

const famRound = "rounding"

func init() {
	Register(&Func{Name: "bin", Family: famRound, MinArgs: 2, MaxArgs: 2,
		Result: binResult("bin"), Eval: evalBin,
		Doc: "bin(value, size): value rounded down to a multiple of size; datetimes and timespans take a timespan size."})
	Register(&Func{Name: "bin_auto", Family: famRound, MinArgs: 1, MaxArgs: 1,
		Result: Sig("bin_auto", vector.DateTime, KTime), Eval: evalBinAuto,
		Doc: "bin_auto(_time): bin with a size chosen from the query's time range (about 100 bins)."})
	Register(&Func{Name: "floor", Family: famRound, MinArgs: 1, MaxArgs: 2,
		Result: roundResult("floor"), Eval: roundEval(math.Floor),
		Doc: "floor(x): the largest integer not above x; floor(x, size) is bin(x, size)."})
	Register(&Func{Name: "ceiling", Family: famRound, MinArgs: 1, MaxArgs: 1,
		Result: roundResult("ceiling"), Eval: roundEval(math.Ceil),
		Doc: "ceiling(x): the smallest integer not below x."})
}

var kBinnable = Of(vector.Int, vector.Float, vector.DateTime, vector.TimeSpan)

func binResult(name string) func([]vector.Type) (vector.Type, error) {
	return func(args []vector.Type) (vector.Type, error) {
		if err := CheckArgs(name, args, kBinnable, Of(vector.Int, vector.Float, vector.TimeSpan)); err != nil {
			return vector.Null, err
		}
		v, size := args[0], args[1]
		switch {
		case v == vector.DateTime || v == vector.TimeSpan:
			if err := Arg(name, 1, size, KSpan); err != nil {
				return vector.Null, err
			}
			return v, nil
		case v == vector.Int && (size == vector.Int || size == vector.Null):
			return vector.Int, nil
		case v == vector.Dynamic && size == vector.TimeSpan:
			return vector.DateTime, nil
		case size == vector.TimeSpan:
			return vector.Null, fmt.Errorf("argument 2 of %s must be long or real for a %s value, got timespan", name, v)
		}
		return vector.Float, nil
	}
}

func roundResult(name string) func([]vector.Type) (vector.Type, error) {
	bin := binResult(name)
	return func(args []vector.Type) (vector.Type, error) {
		if len(args) == 2 {
			return bin(args)
		}
		if err := CheckArgs(name, args, KNum); err != nil {
			return vector.Null, err
		}
		if args[0] == vector.Int {
			return vector.Int, nil
		}
		return vector.Float, nil
	}
}

func roundEval(f func(float64) float64) EvalFunc {
	return func(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		if len(args) == 2 {
			return evalBin(ctx, args, n)
		}
		if args[0].Type == vector.Int {
			return args[0], nil
		}
		return Unary(vector.Float, args[0], n, ToFloat, func(x float64) (float64, bool) { return f(x), true }), nil
	}
}

func evalBin(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	types := []vector.Type{args[0].Type, args[1].Type}
	t, err := binResult("bin")(types)
	if err != nil {
		return nil, err
	}
	if t == vector.Float {
		return Binary(vector.Float, args[0], args[1], n, ToFloat, ToFloat, func(x, s float64) (float64, bool) {
			if !(s > 0) {
				return 0, false
			}
			return math.Floor(x/s) * s, true
		}), nil
	}
	get := ToInt
	if t == vector.DateTime {
		get = ToTime
	}
	a, size := args[0], args[1]
	if a.Type == t && !a.Const && size.Const && !size.IsNull(0) {
		return binInts(a, n, size.Int(0), t), nil
	}
	return Binary(t, a, size, n, get, ToDuration, func(x, s int64) (int64, bool) {
		if s <= 0 {
			return 0, false
		}
		return binInt(x, s)
	}), nil
}

// binInt rounds x down to a multiple of s (s > 0), toward minus infinity;
// false when that multiple is below the smallest int64 (a datetime in
// 1677 binned by a span that reaches before the range).
func binInt(x, s int64) (int64, bool) {
	r := x % s
	if r < 0 {
		r += s
	}
	return x - r, x-r <= x
}

// binInts is bin's hot loop: a column of int-backed values and a constant
// size, written straight into a new slice.
func binInts(a *vector.Vector, n Rows, s int64, t vector.Type) *vector.Vector {
	if s <= 0 {
		return Nulls(t, n.N)
	}
	in := a.Ints[:n.N]
	out := make([]int64, n.N)
	under := false
	for i := range n.Live() {
		x := in[i]
		r := x % s
		if r < 0 {
			r += s
		}
		out[i] = x - r
		under = under || out[i] > x
	}
	if under {
		get := ToInt
		if t == vector.DateTime {
			get = ToTime
		}
		return Binary(t, a, vector.NewConst(vector.Int, s, n.N), n, get, ToInt, binInt)
	}
	return &vector.Vector{Type: t, Len: n.N, Ints: out, Valid: a.Valid}
}

// autoBinSizes are the sizes bin_auto picks from, smallest first.
var autoBinSizes = []time.Duration{
	time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour,
}

// autoBinTarget is the most bins bin_auto aims for over the query range.
const autoBinTarget = 100

// AutoBinSize returns the bin size bin_auto uses for the range
// [start, end): the smallest size from a fixed ladder that yields at most
// about 100 bins, or one hour when the range is unbounded.
func AutoBinSize(start, end time.Time) time.Duration {
	if start.IsZero() || end.IsZero() || !end.After(start) {
		return time.Hour
	}
	span := end.Sub(start)
	for _, s := range autoBinSizes {
		if span/s <= autoBinTarget {
			return s
		}
	}
	return autoBinSizes[len(autoBinSizes)-1]
}

func evalBinAuto(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	s := int64(AutoBinSize(ctx.Start, ctx.End))
	a := args[0]
	if a.Type == vector.DateTime && !a.Const {
		return binInts(a, n, s, vector.DateTime), nil
	}
	return Unary(vector.DateTime, a, n, ToTime, func(x int64) (int64, bool) { return binInt(x, s) }), nil
}
