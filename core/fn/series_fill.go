package fn

// Filling gaps in series: series_fill_backward, series_fill_forward,
// series_fill_const and series_fill_linear. A gap is a null element, or
// an element equal to the optional missing_value_placeholder argument
// (KQL's way of marking gaps in series made with a default of 0).

import (
	"math"
	"time"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "series_fill_backward", Family: "time-series", MinArgs: 1, MaxArgs: 2,
		Result: Sig("series_fill_backward", vector.Dynamic, KDyn, KAny), Eval: evalSeriesFillDir(false),
		Doc: "Fills gaps with the next known value; trailing gaps stay."})
	Register(&Func{Name: "series_fill_forward", Family: "time-series", MinArgs: 1, MaxArgs: 2,
		Result: Sig("series_fill_forward", vector.Dynamic, KDyn, KAny), Eval: evalSeriesFillDir(true),
		Doc: "Fills gaps with the previous known value; leading gaps stay."})
	Register(&Func{Name: "series_fill_const", Family: "time-series", MinArgs: 2, MaxArgs: 3,
		Result: Sig("series_fill_const", vector.Dynamic, KDyn, KAny, KAny), Eval: evalSeriesFillConst,
		Doc: "Fills gaps with a constant."})
	Register(&Func{Name: "series_fill_linear", Family: "time-series", MinArgs: 1, MaxArgs: 4,
		Result: Sig("series_fill_linear", vector.Dynamic, KDyn, KAny, KBool, KAny), Eval: evalSeriesFillLinear,
		Doc: "Fills gaps by linear interpolation; edges take the nearest value unless fill_edges is false."})
}

// serGapTest returns the test for a gap in row i: null elements, or
// elements equal to the placeholder argument when one is given.
func serGapTest(args []*vector.Vector, pos, i int) func(any) bool {
	if len(args) <= pos || args[pos].IsNull(i) {
		return func(x any) bool { return x == nil }
	}
	ph := args[pos].Value(i)
	return func(x any) bool { return x == nil || arrEqual(x, ph) }
}

// evalSeriesFillDir returns series_fill_forward (forward=true) or
// series_fill_backward.
func evalSeriesFillDir(forward bool) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			arr, ok := arrAt(args[0], i)
			if !ok {
				return nil, false
			}
			gap := serGapTest(args, 1, i)
			out := append([]any(nil), arr...)
			var last any
			have := false
			for k := range out {
				j := k
				if !forward {
					j = len(out) - 1 - k
				}
				if gap(out[j]) {
					if have {
						out[j] = last
					}
					continue
				}
				last, have = out[j], true
			}
			return out, true
		}), nil
	}
}

func evalSeriesFillConst(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok := arrAt(args[0], i)
		if !ok {
			return nil, false
		}
		fill := args[1].Value(i)
		gap := serGapTest(args, 2, i)
		out := make([]any, len(arr))
		for j, x := range arr {
			if gap(x) {
				x = fill
			}
			out[j] = x
		}
		return out, true
	}), nil
}

// evalSeriesFillLinear implements series_fill_linear(series [,
// placeholder [, fill_edges [, constant_value]]]). Interior gaps are
// interpolated between the known neighbours (as reals); with fill_edges
// (the default) leading and trailing gaps copy the nearest known value. A
// series with no known value is filled with constant_value (0 by
// default; null keeps the nulls). Known elements that are not numbers are
// kept but do not anchor the interpolation.
func evalSeriesFillLinear(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok := arrAt(args[0], i)
		if !ok {
			return nil, false
		}
		gap := serGapTest(args, 1, i)
		fillEdges := true
		if len(args) > 2 && !args[2].IsNull(i) {
			fillEdges, _ = ToBool(args[2], i)
		}
		var constant any = int64(0)
		if len(args) > 3 {
			constant = args[3].Value(i)
		}
		return serFillLinear(arr, gap, fillEdges, constant), true
	}), nil
}

func serFillLinear(arr []any, gap func(any) bool, fillEdges bool, constant any) []any {
	out := append([]any(nil), arr...)
	var known []int
	for j, x := range arr {
		if _, isNum := arrNum(x); isNum && !gap(x) {
			known = append(known, j)
		}
	}
	if len(known) == 0 {
		for j, x := range out {
			if gap(x) {
				out[j] = constant
			}
		}
		return out
	}
	for k := 0; k+1 < len(known); k++ {
		a, b := known[k], known[k+1]
		fa, _ := arrNum(arr[a])
		fb, _ := arrNum(arr[b])
		_, da := arr[a].(time.Duration)
		_, db := arr[b].(time.Duration)
		for j := a + 1; j < b; j++ {
			if gap(arr[j]) {
				v := fa + (fb-fa)*float64(j-a)/float64(b-a)
				out[j] = v
				if da && db {
					// Between two timespans the filler is a timespan too.
					out[j] = time.Duration(math.Round(v))
				}
			}
		}
	}
	if fillEdges {
		first, last := known[0], known[len(known)-1]
		for j := 0; j < first; j++ {
			if gap(arr[j]) {
				out[j] = arr[first]
			}
		}
		for j := last + 1; j < len(arr); j++ {
			if gap(arr[j]) {
				out[j] = arr[last]
			}
		}
	}
	return out
}
