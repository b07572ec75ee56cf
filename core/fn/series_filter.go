package fn

// Digital filters over series: series_fir and series_iir, with KQL's
// conventions. Values before the start of the series (and after its end
// for a centred FIR) count as 0, and so do null or non-numeric elements,
// so the output always has the input's length. The outputs are reals.
// Axiom's pages show illustrative outputs that no filter produces (a
// 5-point 0.2 average of [100,120,110,130,105] is not [100,110,...]), so
// the tests follow KQL's documented results instead.

import (
	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "series_fir", Family: "time-series", MinArgs: 2, MaxArgs: 4,
		Result: Sig("series_fir", vector.Dynamic, KDyn, KDyn, KBool, KBool), Eval: evalSeriesFIR,
		Doc: "Finite impulse response filter: series_fir(x, coefficients [, normalize=true [, center=false]])."})
	Register(&Func{Name: "series_iir", Family: "time-series", MinArgs: 3, MaxArgs: 3,
		Result: Sig("series_iir", vector.Dynamic, KDyn, KDyn, KDyn), Eval: evalSeriesIIR,
		Doc: "Infinite impulse response filter: series_iir(x, numerators, denominators)."})
}

// serFloats converts a series to reals, with 0 for elements that are not
// numbers; ok is false when some element is not a number.
func serFloats(arr []any) (out []float64, ok bool) {
	out = make([]float64, len(arr))
	ok = true
	for j, x := range arr {
		f, isNum := arrNum(x)
		if !isNum {
			ok = false
			continue
		}
		out[j] = f
	}
	return out, ok
}

// serBoxFloats boxes reals as a dynamic array, NaN as null.
func serBoxFloats(fs []float64) []any {
	out := make([]any, len(fs))
	for j, f := range fs {
		out[j] = serFloat(f)
	}
	return out
}

func evalSeriesFIR(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok1 := arrAt(args[0], i)
		coef, ok2 := arrAt(args[1], i)
		if !ok1 || !ok2 {
			return nil, false
		}
		opts := [2]bool{true, false} // normalize, center
		for k := 2; k < len(args); k++ {
			if !args[k].IsNull(i) {
				opts[k-2], _ = ToBool(args[k], i)
			}
		}
		c, ok := serFloats(coef)
		if !ok || len(c) == 0 {
			return nil, false
		}
		x, _ := serFloats(arr)
		return serBoxFloats(serFIR(x, c, opts[0], opts[1])), true
	}), nil
}

// serFIR computes y[i] = Σ c[j]·x[i-j+shift], where shift is half the
// filter length when centred and 0 otherwise. Normalizing divides the
// coefficients by their sum (when it is not 0), so a filter of equal
// weights is a moving average.
func serFIR(x, c []float64, normalize, center bool) []float64 {
	if normalize {
		sum := 0.0
		for _, v := range c {
			sum += v
		}
		if sum != 0 {
			nc := make([]float64, len(c))
			for j, v := range c {
				nc[j] = v / sum
			}
			c = nc
		}
	}
	shift := 0
	if center {
		shift = len(c) / 2
	}
	y := make([]float64, len(x))
	for i := range x {
		s := 0.0
		for j, cj := range c {
			if k := i - j + shift; k >= 0 && k < len(x) {
				s += cj * x[k]
			}
		}
		y[i] = s
	}
	return y
}

func evalSeriesIIR(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok1 := arrAt(args[0], i)
		num, ok2 := arrAt(args[1], i)
		den, ok3 := arrAt(args[2], i)
		if !ok1 || !ok2 || !ok3 {
			return nil, false
		}
		b, okb := serFloats(num)
		a, oka := serFloats(den)
		if !okb || !oka || len(a) == 0 || a[0] == 0 {
			return nil, false
		}
		x, _ := serFloats(arr)
		return serBoxFloats(serIIR(x, b, a)), true
	}), nil
}

// serIIR computes a[0]·y[i] = Σ b[j]·x[i-j] - Σ_{j≥1} a[j]·y[i-j].
func serIIR(x, b, a []float64) []float64 {
	y := make([]float64, len(x))
	for i := range x {
		s := 0.0
		for j, bj := range b {
			if i-j >= 0 {
				s += bj * x[i-j]
			}
		}
		for j := 1; j < len(a); j++ {
			if i-j >= 0 {
				s -= a[j] * y[i-j]
			}
		}
		y[i] = s / a[0]
	}
	return y
}
