package fn

// Functions that pick or move elements by position: array_slice,
// array_split, array_index_of, array_rotate_*, array_shift_* and
// array_iff. Negative positions count from the end of the array, as in
// a[-1].

import (
	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "array_slice", Family: "array", MinArgs: 2, MaxArgs: 3,
		Result: Sig("array_slice", vector.Dynamic, KDyn, KInt, KInt), Eval: evalArraySlice,
		Doc: "Elements from start (inclusive) to end (exclusive, as Axiom's page and its example say; Kusto's end is inclusive); negative indexes count from the end."})
	Register(&Func{Name: "array_split", Family: "array", MinArgs: 2, MaxArgs: 2,
		Result: Sig("array_split", vector.Dynamic, KDyn, Of(vector.Int, vector.Dynamic)), Eval: evalArraySplit,
		Doc: "Splits an array before a zero-based index, or before each index of an index array: N indexes give N+1 arrays; negative indexes count from the end."})
	Register(&Func{Name: "array_index_of", Family: "array", MinArgs: 2, MaxArgs: 5,
		Result: Sig("array_index_of", vector.Int, KDyn, KAny, KInt, KInt, KInt), Eval: evalArrayIndexOf,
		Doc: "Zero-based index of the first (or n-th) occurrence of a value, or -1."})
	Register(&Func{Name: "array_rotate_left", Family: "array", MinArgs: 2, MaxArgs: 2,
		Result: Sig("array_rotate_left", vector.Dynamic, KDyn, KInt), Eval: evalArrayRotate(-1),
		Doc: "Rotates the elements left by n positions, wrapping around."})
	Register(&Func{Name: "array_rotate_right", Family: "array", MinArgs: 2, MaxArgs: 2,
		Result: Sig("array_rotate_right", vector.Dynamic, KDyn, KInt), Eval: evalArrayRotate(1),
		Doc: "Rotates the elements right by n positions, wrapping around."})
	Register(&Func{Name: "array_shift_left", Family: "array", MinArgs: 2, MaxArgs: 3,
		Result: Sig("array_shift_left", vector.Dynamic, KDyn, KInt, KAny), Eval: evalArrayShift(-1),
		Doc: "Shifts the elements left by n positions, filling with null or the given value."})
	Register(&Func{Name: "array_shift_right", Family: "array", MinArgs: 2, MaxArgs: 3,
		Result: Sig("array_shift_right", vector.Dynamic, KDyn, KInt, KAny), Eval: evalArrayShift(1),
		Doc: "Shifts the elements right by n positions, filling with null or the given value."})
	Register(&Func{Name: "array_iff", Family: "array", MinArgs: 3, MaxArgs: 3,
		Result: Sig("array_iff", vector.Dynamic, KDyn, KAny, KAny), Eval: evalArrayIff,
		Doc: "Element-wise choice: when_true[i] where condition[i] is true, else when_false[i]."})
}

// evalArraySlice follows Axiom's page: the end index is exclusive, so
// array_slice(a, -3, -1) is the two elements before the last. Without an
// end the slice runs to the end of the array.
func evalArraySlice(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok := arrAt(args[0], i)
		if !ok {
			return nil, false
		}
		start, ok := ToInt(args[1], i)
		if !ok {
			return nil, false
		}
		end := int64(len(arr))
		if len(args) > 2 {
			if end, ok = ToInt(args[2], i); !ok {
				return nil, false
			}
		}
		s, e := ClampIndex(start, len(arr)), ClampIndex(end, len(arr))
		if s >= e {
			return []any{}, true
		}
		return append([]any(nil), arr[s:e]...), true
	}), nil
}

// evalArraySplit cuts the array before each split index. A scalar is one
// index, not a number of parts: Axiom's page (and Kusto) split
// array_split(events, 2) of three events into the first two and the last.
func evalArraySplit(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok := arrAt(args[0], i)
		if !ok {
			return nil, false
		}
		if idx, ok := arrAt(args[1], i); ok {
			return arrSplitAt(arr, idx), true
		}
		k, ok := ToInt(args[1], i)
		if !ok {
			return nil, false
		}
		return arrSplitAt(arr, []any{k}), true
	}), nil
}

func arrSplitAt(arr []any, idx []any) []any {
	out := []any{}
	prev := 0
	for _, x := range idx {
		k, ok := arrInt(x)
		if !ok {
			if f, isNum := arrNum(x); isNum {
				k, ok = FloatToInt(f)
			}
		}
		if !ok {
			continue
		}
		cut := ClampIndex(k, len(arr))
		if cut < prev {
			cut = prev
		}
		out = append(out, append([]any{}, arr[prev:cut]...))
		prev = cut
	}
	return append(out, append([]any{}, arr[prev:]...))
}

// evalArrayIndexOf implements array_index_of(a, value [, start [, length
// [, occurrence]]]): start may be negative (from the end), length -1
// means to the end, occurrence counts matches from 1.
func evalArrayIndexOf(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Int, args, n, func(i int) (int64, bool) {
		arr, ok := arrAt(args[0], i)
		if !ok {
			return 0, false
		}
		want := args[1].Value(i)
		if want == nil {
			return 0, false
		}
		opt := [3]int64{0, -1, 1}
		for j := 2; j < len(args); j++ {
			if opt[j-2], ok = ToInt(args[j], i); !ok {
				return 0, false
			}
		}
		start, length, occurrence := arrIndex(opt[0], len(arr)), opt[1], opt[2]
		if start < 0 {
			start = 0
		}
		end := int64(len(arr))
		if length >= 0 && start+length < end {
			end = start + length
		}
		if occurrence < 1 {
			return -1, true
		}
		for j := start; j < end; j++ {
			if arrEqual(arr[j], want) {
				if occurrence--; occurrence == 0 {
					return j, true
				}
			}
		}
		return -1, true
	}), nil
}

// evalArrayRotate returns the rotate kernel; dir is -1 for left and 1 for
// right, so a negative count rotates the other way.
func evalArrayRotate(dir int64) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			arr, ok := arrAt(args[0], i)
			if !ok {
				return nil, false
			}
			k, ok := ToInt(args[1], i)
			if !ok {
				return nil, false
			}
			out := make([]any, len(arr))
			if len(arr) == 0 {
				return out, true
			}
			shift := (dir * k) % int64(len(arr))
			for j, x := range arr {
				out[(int64(j)+shift+int64(len(arr)))%int64(len(arr))] = x
			}
			return out, true
		}), nil
	}
}

// evalArrayShift returns the shift kernel; dir is -1 for left and 1 for
// right. Vacated positions get the fill value (null by default).
func evalArrayShift(dir int64) func(*Context, []*vector.Vector, Rows) (*vector.Vector, error) {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
			arr, ok := arrAt(args[0], i)
			if !ok {
				return nil, false
			}
			k, ok := ToInt(args[1], i)
			if !ok {
				return nil, false
			}
			var fill any
			if len(args) > 2 {
				fill = args[2].Value(i)
			}
			out := make([]any, len(arr))
			shift := dir * k
			for j := range out {
				src := int64(j) - shift
				if src >= 0 && src < int64(len(arr)) {
					out[j] = arr[src]
				} else {
					out[j] = fill
				}
			}
			return out, true
		}), nil
	}
}

// evalArrayIff picks element-wise; a branch may be an array (indexed like
// the condition, null past its end) or a scalar used for every element.
// A condition element that is neither a bool nor a number gives null.
func evalArrayIff(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		cond, ok := arrAt(args[0], i)
		if !ok {
			return nil, false
		}
		whenTrue, whenFalse := arrBranch(args[1], i), arrBranch(args[2], i)
		out := make([]any, len(cond))
		for j, c := range cond {
			var pick func(int) any
			switch t := c.(type) {
			case bool:
				pick = whenFalse
				if t {
					pick = whenTrue
				}
			default:
				f, isNum := arrNum(c)
				if !isNum {
					continue
				}
				pick = whenFalse
				if f != 0 {
					pick = whenTrue
				}
			}
			out[j] = pick(j)
		}
		return out, true
	}), nil
}

// arrBranch returns the element picker for one array_iff branch.
func arrBranch(v *vector.Vector, i int) func(int) any {
	if arr, ok := arrAt(v, i); ok {
		return func(j int) any {
			if j < len(arr) {
				return arr[j]
			}
			return nil
		}
	}
	x := v.Value(i)
	return func(int) any { return x }
}
