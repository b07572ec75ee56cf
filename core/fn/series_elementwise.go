package fn

// Element-wise series functions. A series is a dynamic array of numbers
// (what make-series and make_list produce); an element that is null or not
// a number gives a null element. Binary functions accept a scalar on
// either side, which is applied to every element; two series of different
// lengths give a result as long as the longer, null past the shorter.
// Integer elements stay integers where the operation keeps them whole
// (abs, sign, floor, ceiling, add, subtract, multiply); everything else is
// real. A NaN result (acos(2), log(-1)) is a null element, as KQL's scalar
// functions return null there; ±Inf is kept.

import (
	"math"

	"github.com/aplite/aplite/vector"
)

func init() {
	unary := []struct {
		name, doc string
		f         func(float64) float64
		i         func(int64) int64
	}{
		{"series_abs", "absolute value", math.Abs, func(x int64) int64 {
			if x < 0 {
				return -x
			}
			return x
		}},
		{"series_acos", "arc cosine", math.Acos, nil},
		{"series_asin", "arc sine", math.Asin, nil},
		{"series_atan", "arc tangent", math.Atan, nil},
		{"series_ceiling", "smallest integer not below the element", math.Ceil, serKeepInt},
		{"series_cos", "cosine", math.Cos, nil},
		{"series_exp", "e raised to the element", math.Exp, nil},
		{"series_floor", "largest integer not above the element", math.Floor, serKeepInt},
		{"series_log", "natural logarithm", math.Log, nil},
		{"series_sign", "sign (-1, 0 or 1)", serSign, func(x int64) int64 { return int64(arrCmp(x, 0)) }},
		{"series_sin", "sine", math.Sin, nil},
		{"series_tan", "tangent", math.Tan, nil},
	}
	for _, u := range unary {
		Register(&Func{Name: u.name, Family: "time-series", MinArgs: 1, MaxArgs: 1,
			Result: Sig(u.name, vector.Dynamic, KDyn), Eval: evalSeriesUnary(u.f, u.i),
			Doc: "Element-wise " + u.doc + " of a numeric array."})
	}
	binary := []struct {
		name, doc string
		op        serOp
	}{
		{"series_add", "sum", serArith(func(a, b float64) float64 { return a + b }, func(a, b int64) int64 { return a + b })},
		{"series_subtract", "difference", serArith(func(a, b float64) float64 { return a - b }, func(a, b int64) int64 { return a - b })},
		{"series_multiply", "product", serArith(func(a, b float64) float64 { return a * b }, func(a, b int64) int64 { return a * b })},
		{"series_divide", "quotient (always real)", serArith(func(a, b float64) float64 { return a / b }, nil)},
		{"series_pow", "power (always real)", serArith(math.Pow, nil)},
		{"series_greater", "a > b", serCompare(func(c int) bool { return c > 0 })},
		{"series_greater_equals", "a >= b", serCompare(func(c int) bool { return c >= 0 })},
		{"series_less", "a < b", serCompare(func(c int) bool { return c < 0 })},
		{"series_less_equals", "a <= b", serCompare(func(c int) bool { return c <= 0 })},
		{"series_equals", "a == b", serCompare(func(c int) bool { return c == 0 })},
		{"series_not_equals", "a != b", serCompare(func(c int) bool { return c != 0 })},
	}
	for _, b := range binary {
		Register(&Func{Name: b.name, Family: "time-series", MinArgs: 2, MaxArgs: 2,
			Result: Sig(b.name, vector.Dynamic, KNum, KNum), Eval: evalSeriesBinary(b.op),
			Doc: "Element-wise " + b.doc + " of two numeric arrays, or of an array and a scalar."})
	}
}

func serKeepInt(x int64) int64 { return x }

func serSign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x // 0, -0 and NaN
}

// serFloat boxes a real result, turning NaN into a null element.
func serFloat(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}

func evalSeriesUnary(f func(float64) float64, fi func(int64) int64) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			arr, ok := arrAt(args[0], i)
			if !ok {
				return nil, false
			}
			out := make([]any, len(arr))
			for j, x := range arr {
				if k, isInt := arrInt(x); isInt && fi != nil {
					out[j] = fi(k)
				} else if v, isNum := arrNum(x); isNum {
					out[j] = serFloat(f(v))
				}
			}
			return out, true
		}), nil
	}
}

// serOp combines two numeric elements; ok is false when either is not a
// number.
type serOp func(a, b any) any

func serArith(f func(a, b float64) float64, fi func(a, b int64) int64) serOp {
	return func(a, b any) any {
		if fi != nil {
			ia, aInt := arrInt(a)
			ib, bInt := arrInt(b)
			if aInt && bInt {
				return fi(ia, ib)
			}
		}
		x, ok1 := arrNum(a)
		y, ok2 := arrNum(b)
		if !ok1 || !ok2 {
			return nil
		}
		return serFloat(f(x, y))
	}
}

func serCompare(pred func(int) bool) serOp {
	return func(a, b any) any {
		_, ok1 := arrNum(a)
		_, ok2 := arrNum(b)
		if !ok1 || !ok2 {
			return nil
		}
		fa, _ := arrNum(a)
		fb, _ := arrNum(b)
		if math.IsNaN(fa) || math.IsNaN(fb) {
			return nil
		}
		return pred(arrCompareNum(a, b))
	}
}

// serOperand is one side of a binary series function: a series, or a
// scalar repeated for every element.
type serOperand struct {
	arr    []any
	scalar any
	isArr  bool
}

// serOperandAt reads row i of v as a series or a numeric scalar.
func serOperandAt(v *vector.Vector, i int) (serOperand, bool) {
	if arr, ok := arrAt(v, i); ok {
		return serOperand{arr: arr, isArr: true}, true
	}
	switch v.Type {
	case vector.Int:
		if !v.IsNull(i) {
			return serOperand{scalar: v.Int(i)}, true
		}
	case vector.Float:
		if !v.IsNull(i) {
			return serOperand{scalar: v.Float(i)}, true
		}
	case vector.Dynamic:
		if !v.IsNull(i) {
			if _, ok := arrNum(v.Dyn(i)); ok {
				return serOperand{scalar: v.Dyn(i)}, true
			}
		}
	}
	return serOperand{}, false
}

func (o serOperand) at(j int) any {
	if !o.isArr {
		return o.scalar
	}
	if j < len(o.arr) {
		return o.arr[j]
	}
	return nil
}

// serPair reads both operands of a binary series function and the
// length of the result; it fails when either is null or when neither is
// a series.
func serPair(args []*vector.Vector, i int) (a, b serOperand, n int, ok bool) {
	a, ok1 := serOperandAt(args[0], i)
	b, ok2 := serOperandAt(args[1], i)
	if !ok1 || !ok2 || (!a.isArr && !b.isArr) {
		return a, b, 0, false
	}
	return a, b, max(len(a.arr), len(b.arr)), true
}

func evalSeriesBinary(op serOp) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			a, b, length, ok := serPair(args, i)
			if !ok {
				return nil, false
			}
			out := make([]any, length)
			for j := range out {
				out[j] = op(a.at(j), b.at(j))
			}
			return out, true
		}), nil
	}
}
