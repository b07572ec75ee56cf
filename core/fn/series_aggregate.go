package fn

// Series functions that reduce arrays to numbers: series_max, series_min
// (which with two arguments are element-wise instead), series_sum,
// series_magnitude, series_dot_product, series_cosine_similarity,
// series_pearson_correlation, series_stats and series_stats_dynamic.
// Elements that are null or not numbers are skipped.

import (
	"math"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "series_max", Family: "time-series", MinArgs: 1, MaxArgs: 2,
		Result: serMinMaxResult("series_max"), Eval: evalSeriesMinMax(1),
		Doc: "Largest element of a numeric array; with two arguments, the element-wise maximum."})
	Register(&Func{Name: "series_min", Family: "time-series", MinArgs: 1, MaxArgs: 2,
		Result: serMinMaxResult("series_min"), Eval: evalSeriesMinMax(-1),
		Doc: "Smallest element of a numeric array; with two arguments, the element-wise minimum."})
	Register(&Func{Name: "series_sum", Family: "time-series", MinArgs: 1, MaxArgs: 1,
		Result: Sig("series_sum", vector.Float, KDyn), Eval: evalSeriesReduce(serSum),
		Doc: "Sum of the elements of a numeric array."})
	Register(&Func{Name: "series_magnitude", Family: "time-series", MinArgs: 1, MaxArgs: 1,
		Result: Sig("series_magnitude", vector.Float, KDyn), Eval: evalSeriesReduce(serMagnitude),
		Doc: "Euclidean norm (square root of the sum of squares) of a numeric array."})
	Register(&Func{Name: "series_dot_product", Family: "time-series", MinArgs: 2, MaxArgs: 2,
		Result: Sig("series_dot_product", vector.Float, KNum, KNum), Eval: evalSeriesPair(serDot),
		Doc: "Dot product of two numeric arrays (or an array and a scalar)."})
	Register(&Func{Name: "series_cosine_similarity", Family: "time-series", MinArgs: 2, MaxArgs: 2,
		Result: Sig("series_cosine_similarity", vector.Float, KNum, KNum), Eval: evalSeriesPair(serCosine),
		Doc: "Cosine of the angle between two numeric arrays."})
	Register(&Func{Name: "series_pearson_correlation", Family: "time-series", MinArgs: 2, MaxArgs: 2,
		Result: Sig("series_pearson_correlation", vector.Float, KDyn, KDyn), Eval: evalSeriesPair(serPearson),
		Doc: "Pearson correlation coefficient of two numeric arrays."})
	Register(&Func{Name: "series_stats", Family: "time-series", MinArgs: 1, MaxArgs: 2,
		Result: Sig("series_stats", vector.Dynamic, KDyn, KBool), Eval: evalSeriesStats(true),
		Doc: "Array [min, min_idx, max, max_idx, avg, variance, stdev] (sample variance) of a numeric array, in the order of Axiom's page."})
	Register(&Func{Name: "series_stats_dynamic", Family: "time-series", MinArgs: 1, MaxArgs: 2,
		Result: Sig("series_stats_dynamic", vector.Dynamic, KDyn, KBool), Eval: evalSeriesStats(false),
		Doc: "The series_stats statistics as a bag: min, min_idx, max, max_idx, avg, variance and stdev."})
}

// serMinMaxResult types series_max/series_min by arity: one argument
// reduces to a real, two are element-wise and give an array.
func serMinMaxResult(name string) func([]vector.Type) (vector.Type, error) {
	return func(args []vector.Type) (vector.Type, error) {
		if len(args) == 1 {
			return Sig(name, vector.Float, KDyn)(args)
		}
		return Sig(name, vector.Dynamic, KNum, KNum)(args)
	}
}

// evalSeriesMinMax returns series_max (sign 1) or series_min (sign -1).
func evalSeriesMinMax(sign int) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	pick := func(a, b any) any {
		_, ok1 := arrNum(a)
		_, ok2 := arrNum(b)
		switch {
		case !ok1 || !ok2:
			return nil
		case arrCompareNum(a, b)*sign >= 0:
			return a
		}
		return b
	}
	binary := evalSeriesBinary(pick)
	reduce := evalSeriesReduce(func(arr []any) (float64, bool) {
		best, found := 0.0, false
		for _, x := range arr {
			f, ok := arrNum(x)
			if !ok || math.IsNaN(f) {
				continue
			}
			if !found || (f-best)*float64(sign) > 0 {
				best, found = f, true
			}
		}
		return best, found
	})
	return func(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		if len(args) == 2 {
			return binary(ctx, args, n)
		}
		return reduce(ctx, args, n)
	}
}

func evalSeriesReduce(f func([]any) (float64, bool)) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Float, args, n, func(i int) (float64, bool) {
			arr, ok := arrAt(args[0], i)
			if !ok {
				return 0, false
			}
			return f(arr)
		}), nil
	}
}

func serSum(arr []any) (float64, bool) {
	s := 0.0
	for _, x := range arr {
		if f, ok := arrNum(x); ok {
			s += f
		}
	}
	return s, true
}

func serMagnitude(arr []any) (float64, bool) {
	s := 0.0
	for _, x := range arr {
		if f, ok := arrNum(x); ok {
			s += f * f
		}
	}
	return math.Sqrt(s), true
}

// serPairs returns the element pairs where both sides are numbers. Two
// series are paired up to the shorter one; a scalar pairs with every
// element of the other side.
func serPairs(a, b serOperand) (xs, ys []float64) {
	n := max(len(a.arr), len(b.arr))
	if a.isArr && b.isArr {
		n = min(len(a.arr), len(b.arr))
	}
	for j := 0; j < n; j++ {
		x, ok1 := arrNum(a.at(j))
		y, ok2 := arrNum(b.at(j))
		if ok1 && ok2 {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	return xs, ys
}

func evalSeriesPair(f func(xs, ys []float64) (float64, bool)) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Float, args, n, func(i int) (float64, bool) {
			a, b, _, ok := serPair(args, i)
			if !ok {
				return 0, false
			}
			r, ok := f(serPairs(a, b))
			return r, ok && !math.IsNaN(r)
		}), nil
	}
}

func serDot(xs, ys []float64) (float64, bool) {
	s := 0.0
	for j := range xs {
		s += xs[j] * ys[j]
	}
	return s, true
}

func serCosine(xs, ys []float64) (float64, bool) {
	dot, _ := serDot(xs, ys)
	nx, _ := serDot(xs, xs)
	ny, _ := serDot(ys, ys)
	if nx == 0 || ny == 0 {
		return 0, false
	}
	return dot / (math.Sqrt(nx) * math.Sqrt(ny)), true
}

func serPearson(xs, ys []float64) (float64, bool) {
	if len(xs) < 2 {
		return 0, false
	}
	mx, my := serMean(xs), serMean(ys)
	var sxy, sxx, syy float64
	for j := range xs {
		dx, dy := xs[j]-mx, ys[j]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}

func serMean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// serStatsOrder is the element order of series_stats' array, fixed by
// Axiom's page (stats[0] is min, stats[6] is stdev); series_stats_dynamic
// names the same values.
var serStatsOrder = [...]string{"min", "min_idx", "max", "max_idx", "avg", "variance", "stdev"}

// evalSeriesStats returns the statistics as an array (series_stats: Axiom's
// page indexes stats[0]..stats[6]) or as a bag (series_stats_dynamic: its
// page uses stats.min, stats.avg). The optional second argument,
// ignore_nonfinite, skips NaN and ±Inf elements; otherwise they take part
// and make the results non-finite. With no numeric element every
// statistic is null.
func evalSeriesStats(asArray bool) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			arr, ok := arrAt(args[0], i)
			if !ok {
				return nil, false
			}
			skipNonFinite := false
			if len(args) > 1 && !args[1].IsNull(i) {
				skipNonFinite, _ = ToBool(args[1], i)
			}
			st := serStats(arr, skipNonFinite)
			if !asArray {
				bag := make(map[string]any, len(serStatsOrder))
				for j, k := range serStatsOrder {
					bag[k] = st[j]
				}
				return bag, true
			}
			return st[:], true
		}), nil
	}
}

// serStats returns the statistics of arr in serStatsOrder; all null when
// arr holds no number.
func serStats(arr []any, skipNonFinite bool) [len(serStatsOrder)]any {
	var out [len(serStatsOrder)]any
	var vals []float64
	var minV, maxV float64
	var minIdx, maxIdx int
	for j, x := range arr {
		f, ok := arrNum(x)
		if !ok || (skipNonFinite && (math.IsNaN(f) || math.IsInf(f, 0))) {
			continue
		}
		if len(vals) == 0 || f < minV {
			minV, minIdx = f, j
		}
		if len(vals) == 0 || f > maxV {
			maxV, maxIdx = f, j
		}
		vals = append(vals, f)
	}
	if len(vals) == 0 {
		return out
	}
	avg := serMean(vals)
	variance := 0.0
	for _, f := range vals {
		variance += (f - avg) * (f - avg)
	}
	if len(vals) > 1 {
		variance /= float64(len(vals) - 1)
	}
	return [...]any{minV, int64(minIdx), maxV, int64(maxIdx), avg, variance, math.Sqrt(variance)}
}
