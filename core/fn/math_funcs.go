package fn

import (
	"math"

	"github.com/aplite/aplite/vector"
)

// Real-valued math functions. They return NaN or ±Inf where the maths
// does (log(0), sqrt(-1)); results show those as null.

const famMath = "math"

func init() {
	unary := []struct {
		name string
		f    func(float64) float64
		doc  string
	}{
		{"acos", math.Acos, "Arc cosine, in radians."},
		{"asin", math.Asin, "Arc sine, in radians."},
		{"atan", math.Atan, "Arc tangent, in radians."},
		{"cos", math.Cos, "Cosine of an angle in radians."},
		{"sin", math.Sin, "Sine of an angle in radians."},
		{"tan", math.Tan, "Tangent of an angle in radians."},
		{"cot", func(x float64) float64 { return 1 / math.Tan(x) }, "Cotangent of an angle in radians."},
		{"degrees", func(x float64) float64 { return x * 180 / math.Pi }, "Converts radians to degrees."},
		{"radians", func(x float64) float64 { return x * math.Pi / 180 }, "Converts degrees to radians."},
		{"exp", math.Exp, "e raised to the power x."},
		{"exp2", math.Exp2, "2 raised to the power x."},
		{"exp10", func(x float64) float64 { return math.Pow(10, x) }, "10 raised to the power x."},
		{"log", math.Log, "Natural logarithm."},
		{"log2", math.Log2, "Base-2 logarithm."},
		{"log10", math.Log10, "Base-10 logarithm."},
		{"sqrt", math.Sqrt, "Square root; NaN (shown as null) for negative input."},
		{"gamma", math.Gamma, "The gamma function."},
		{"loggamma", func(x float64) float64 { l, _ := math.Lgamma(x); return l }, "Natural logarithm of the absolute value of the gamma function."},
	}
	for _, u := range unary {
		f := u.f
		Register(&Func{Name: u.name, Family: famMath, MinArgs: 1, MaxArgs: 1,
			Result: Sig(u.name, vector.Float, KNum),
			Eval: func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
				return floatMap(args[0], n, f), nil
			},
			Doc: u.doc})
	}
	Register(&Func{Name: "atan2", Family: famMath, MinArgs: 2, MaxArgs: 2,
		Result: Sig("atan2", vector.Float, KNum, KNum),
		Eval:   floatBinary(math.Atan2),
		Doc:    "atan2(y, x): angle in radians between the positive x axis and the point (x, y)."})
	Register(&Func{Name: "pow", Family: famMath, MinArgs: 2, MaxArgs: 2,
		Result: Sig("pow", vector.Float, KNum, KNum),
		Eval:   floatBinary(math.Pow),
		Doc:    "pow(base, exponent): base raised to exponent."})
	Register(&Func{Name: "pi", Family: famMath, MinArgs: 0, MaxArgs: 0,
		Result: Fixed(vector.Float),
		Eval: func(_ *Context, _ []*vector.Vector, n Rows) (*vector.Vector, error) {
			return vector.NewConst(vector.Float, math.Pi, n.N), nil
		},
		Doc: "The constant π."})
}

// floatMap applies f to a numeric column as reals, with a tight loop for
// a plain real or long column.
func floatMap(a *vector.Vector, n Rows, f func(float64) float64) *vector.Vector {
	if a.Const || (a.Type != vector.Float && a.Type != vector.Int) {
		return Unary(vector.Float, a, n, ToFloat, func(x float64) (float64, bool) { return f(x), true })
	}
	out := make([]float64, n.N)
	if a.Type == vector.Float {
		in := a.Floats[:n.N]
		for i := range n.Live() {
			out[i] = f(in[i])
		}
	} else {
		in := a.Ints[:n.N]
		for i := range n.Live() {
			out[i] = f(float64(in[i]))
		}
	}
	return &vector.Vector{Type: vector.Float, Len: n.N, Floats: out, Valid: a.Valid}
}

func floatBinary(f func(a, b float64) float64) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Binary(vector.Float, args[0], args[1], n, ToFloat, ToFloat, func(a, b float64) (float64, bool) {
			return f(a, b), true
		}), nil
	}
}
