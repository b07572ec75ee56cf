package fn

import (
	"time"

	"github.com/aplite/aplite/vector"
)

// range and the set_* functions over dynamic arrays. Set elements are
// compared by their canonical JSON text, so 1 and 1.0 are the same
// element and bags compare by content; results keep first-seen order.

// maxRangeLen caps range(): KQL's documented limit on generated arrays.
const maxRangeLen = 1 << 20

func init() {
	Register(&Func{Name: "range", Family: famMath, MinArgs: 2, MaxArgs: 3,
		Result: rangeResult, Eval: evalRange,
		Doc: "range(start, stop[, step]): array of values from start to stop inclusive; numbers, or datetimes with a timespan step (at most 1,048,576 values)."})
	Register(&Func{Name: "set_has_element", Family: famMath, MinArgs: 2, MaxArgs: 2,
		Result: Sig("set_has_element", vector.Bool, KDyn, KAny), Eval: evalSetHas,
		Doc: "set_has_element(array, value): true when the array contains value."})
	sets := []struct {
		name string
		op   func(arrs [][]any) []any
		doc  string
	}{
		{"set_union", setUnion, "set_union(arr1, arr2, ...): distinct elements of all arrays."},
		{"set_intersect", setIntersect, "set_intersect(arr1, arr2, ...): distinct elements present in every array."},
		{"set_difference", setDifference, "set_difference(arr1, arr2, ...): distinct elements of arr1 that are in none of the others."},
	}
	for _, s := range sets {
		op := s.op
		Register(&Func{Name: s.name, Family: famMath, MinArgs: 2, MaxArgs: 64,
			Result: Sig(s.name, vector.Dynamic, KDyn), Eval: setEval(op), Doc: s.doc})
	}
}

func rangeResult(args []vector.Type) (vector.Type, error) {
	if err := CheckArgs("range", args, Of(vector.Int, vector.Float, vector.DateTime, vector.TimeSpan)); err != nil {
		return vector.Null, err
	}
	return vector.Dynamic, nil
}

// rangeElemBytes is what one element of a range() array costs: its
// interface word pair and the boxed number.
const rangeElemBytes = 24

// evalRange charges the query's memory budget for the arrays it builds,
// as strrep does: an array per row of up to a million values is 24 MB a
// row, and a batch of rows builds them all before any operator sees one.
// The charge is given back on return, when the column is the caller's.
func evalRange(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	timeLike := args[0].Type == vector.DateTime || args[0].Type == vector.TimeSpan
	var charged, pending int64
	var failed error
	defer func() { ctx.charge(-charged) }()
	out := Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		if failed != nil {
			return nil, false
		}
		var v any
		var ok bool
		switch {
		case timeLike:
			v, ok = timeRange(args, i)
		case args[0].Type == vector.Int && args[1].Type == vector.Int && (len(args) < 3 || args[2].Type == vector.Int):
			v, ok = intRange(args, i)
		default:
			v, ok = floatRange(args, i)
		}
		if arr, isArr := v.([]any); isArr {
			if pending += int64(len(arr)) * rangeElemBytes; pending >= strrepChargeStep {
				charged += pending
				failed, pending = ctx.charge(pending), 0
			}
		}
		return v, ok
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

func intRange(args []*vector.Vector, i int) (any, bool) {
	start, ok1 := ToInt(args[0], i)
	stop, ok2 := ToInt(args[1], i)
	step, ok3 := optInt(args, 2, i, 1)
	if !ok1 || !ok2 || !ok3 || !rangeFits(start, stop, step) {
		return nil, false
	}
	out := []any{}
	stepInts(start, stop, step, func(x int64) { out = append(out, x) })
	return out, true
}

// rangeFits reports whether range(start, stop, step) over int64 values
// (longs, or a time's nanoseconds) has a step and at most maxRangeLen
// elements; a distance that overflows int64 is far more than that.
func rangeFits(start, stop, step int64) bool {
	d, ok := SubNanos(stop, start)
	return ok && step != 0 && d/step < maxRangeLen
}

// stepInts calls f for start, start+step, ... up to stop, and stops
// before a step that would overflow int64 (near the ends of the range
// it wrapped around and never reached stop: an endless array).
func stepInts(start, stop, step int64, f func(int64)) {
	for x := start; (step > 0 && x <= stop) || (step < 0 && x >= stop); {
		f(x)
		next, ok := AddNanos(x, step)
		if !ok {
			return
		}
		x = next
	}
}

func floatRange(args []*vector.Vector, i int) (any, bool) {
	start, ok1 := ToFloat(args[0], i)
	stop, ok2 := ToFloat(args[1], i)
	step := 1.0
	ok3 := true
	if len(args) > 2 {
		step, ok3 = ToFloat(args[2], i)
	}
	if !ok1 || !ok2 || !ok3 || step == 0 || step != step || start != start || stop != stop || (stop-start)/step >= maxRangeLen {
		return nil, false
	}
	out := []any{}
	for k := 0; k <= maxRangeLen; k++ { // bounded even where rounding stalls x
		x := start + float64(k)*step
		if (step > 0 && x > stop) || (step < 0 && x < stop) {
			break
		}
		out = append(out, x)
	}
	return out, true
}

func timeRange(args []*vector.Vector, i int) (any, bool) {
	isTime := args[0].Type == vector.DateTime
	get := ToDuration
	if isTime {
		get = ToTime
	}
	start, ok1 := get(args[0], i)
	stop, ok2 := get(args[1], i)
	step, ok3 := int64(0), false
	if len(args) > 2 {
		step, ok3 = ToDuration(args[2], i)
	}
	if !ok1 || !ok2 || !ok3 || !rangeFits(start, stop, step) {
		return nil, false
	}
	out := []any{}
	stepInts(start, stop, step, func(x int64) {
		if isTime {
			out = append(out, utc(x))
		} else {
			out = append(out, durationOf(x))
		}
	})
	return out, true
}

func evalSetHas(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Binary(vector.Bool, args[0], args[1], n, ToDynamic, ToDynamic, func(a, v any) (bool, bool) {
		arr, ok := a.([]any)
		if !ok {
			return false, false
		}
		key := setKey(v)
		for _, e := range arr {
			if setKey(e) == key {
				return true, true
			}
		}
		return false, true
	}), nil
}

func setKey(x any) string { return string(AppendJSON(nil, x)) }

func setEval(op func([][]any) []any) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			arrs := make([][]any, len(args))
			for j, a := range args {
				d, _ := ToDynamic(a, i)
				arr, ok := d.([]any)
				if !ok {
					return nil, false
				}
				arrs[j] = arr
			}
			return op(arrs), true
		}), nil
	}
}

// distinctAdd appends x to out unless its key is in seen.
func distinctAdd(out []any, seen map[string]bool, x any) []any {
	k := setKey(x)
	if seen[k] {
		return out
	}
	seen[k] = true
	return append(out, x)
}

func setUnion(arrs [][]any) []any {
	out, seen := []any{}, map[string]bool{}
	for _, arr := range arrs {
		for _, x := range arr {
			out = distinctAdd(out, seen, x)
		}
	}
	return out
}

func keysOf(arr []any) map[string]bool {
	m := make(map[string]bool, len(arr))
	for _, x := range arr {
		m[setKey(x)] = true
	}
	return m
}

func setIntersect(arrs [][]any) []any {
	others := make([]map[string]bool, len(arrs)-1)
	for j, arr := range arrs[1:] {
		others[j] = keysOf(arr)
	}
	out, seen := []any{}, map[string]bool{}
	for _, x := range arrs[0] {
		k := setKey(x)
		inAll := true
		for _, o := range others {
			inAll = inAll && o[k]
		}
		if inAll {
			out = distinctAdd(out, seen, x)
		}
	}
	return out
}

func setDifference(arrs [][]any) []any {
	others := make([]map[string]bool, len(arrs)-1)
	for j, arr := range arrs[1:] {
		others[j] = keysOf(arr)
	}
	out, seen := []any{}, map[string]bool{}
	for _, x := range arrs[0] {
		k := setKey(x)
		inAny := false
		for _, o := range others {
			inAny = inAny || o[k]
		}
		if !inAny {
			out = distinctAdd(out, seen, x)
		}
	}
	return out
}

func durationOf(ns int64) any { return time.Duration(ns) }
