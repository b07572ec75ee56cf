package fn

// Array construction and whole-array measures: array_length, len,
// isarray, pack_array, array_concat, array_reverse, array_sum and
// strcat_array.

import (
	"strings"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

func init() {
	Register(&Func{Name: "array_length", Family: "array", MinArgs: 1, MaxArgs: 1,
		Result: Sig("array_length", vector.Int, KDyn), Eval: evalArrayLength,
		Doc: "Number of elements of a dynamic array; null when the value is not an array."})
	Register(&Func{Name: "len", Family: "array", MinArgs: 1, MaxArgs: 1,
		Result: Sig("len", vector.Int, Of(vector.String, vector.Dynamic)), Eval: evalLen,
		Doc: "Number of characters of a string or number of elements of an array."})
	Register(&Func{Name: "isarray", Family: "array", MinArgs: 1, MaxArgs: 1,
		Result: Sig("isarray", vector.Bool, KAny), Eval: evalIsArray,
		Doc: "True when the value is a dynamic array."})
	Register(&Func{Name: "pack_array", Family: "array", MinArgs: 1, MaxArgs: -1,
		Result: Sig("pack_array", vector.Dynamic, KAny), Eval: evalPackArray,
		Doc: "Packs its arguments into a dynamic array."})
	Register(&Func{Name: "array_concat", Family: "array", MinArgs: 1, MaxArgs: -1,
		Result: Sig("array_concat", vector.Dynamic, KDyn), Eval: evalArrayConcat,
		Doc: "Concatenates arrays into one; null when any argument is not an array."})
	Register(&Func{Name: "array_reverse", Family: "array", MinArgs: 1, MaxArgs: 1,
		Result: Sig("array_reverse", vector.Dynamic, KDyn), Eval: evalArrayReverse,
		Doc: "The array's elements in reverse order."})
	Register(&Func{Name: "array_sum", Family: "array", MinArgs: 1, MaxArgs: 1,
		Result: Sig("array_sum", vector.Float, KDyn), Eval: evalArraySum,
		Doc: "Sum of the numeric elements of an array (others are ignored); 0 for an empty array."})
	Register(&Func{Name: "strcat_array", Family: "array", MinArgs: 1, MaxArgs: 2,
		Result: Sig("strcat_array", vector.String, KDyn, KString), Eval: evalStrcatArray,
		Doc: "Joins an array's elements into a string with an optional delimiter."})
}

// evalArrayLength is a direct loop rather than Each because it runs over
// whole columns of arrays (where array_length(tags) > 3): one type switch
// per row, no closure call and no per-row allocation.
func evalArrayLength(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	if a.Type != vector.Dynamic {
		return Nulls(vector.Int, n.N), nil
	}
	if a.Const {
		if arr, ok := arrAt(a, 0); ok {
			return vector.NewConst(vector.Int, int64(len(arr)), n.N), nil
		}
		return Nulls(vector.Int, n.N), nil
	}
	out := make([]int64, n.N)
	dyns := a.Dyns[:n.N]
	var valid vector.Bitmap
	// A null row holds a nil in Dyns, which fails the assertion below, so
	// the validity bitmap of the input need not be consulted.
	for i := range n.Live() {
		if arr, ok := dyns[i].([]any); ok {
			out[i] = int64(len(arr))
			continue
		}
		valid = clearBit(valid, i, n.N)
	}
	return &vector.Vector{Type: vector.Int, Len: n.N, Ints: out, Valid: valid}, nil
}

func evalLen(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	if a.Type == vector.String {
		return MapStrings(vector.Int, a, n, func(s string) (int64, bool) {
			return int64(utf8.RuneCountInString(s)), true
		}), nil
	}
	return Each(vector.Int, args, n, func(i int) (int64, bool) {
		if a.Type != vector.Dynamic || a.IsNull(i) {
			return 0, false
		}
		switch t := a.Dyn(i).(type) {
		case []any:
			return int64(len(t)), true
		case string:
			return int64(utf8.RuneCountInString(t)), true
		}
		return 0, false
	}), nil
}

func evalIsArray(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	if a.Type != vector.Dynamic {
		return vector.NewConst(vector.Bool, false, n.N), nil
	}
	return Each(vector.Bool, args, n, func(i int) (bool, bool) {
		_, ok := arrAt(a, i)
		return ok, true
	}), nil
}

func evalPackArray(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		out := make([]any, len(args))
		for j, a := range args {
			out[j] = a.Value(i)
		}
		return out, true
	}), nil
}

func evalArrayConcat(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		total := 0
		for _, a := range args {
			arr, ok := arrAt(a, i)
			if !ok {
				return nil, false
			}
			total += len(arr)
		}
		out := make([]any, 0, total)
		for _, a := range args {
			arr, _ := arrAt(a, i)
			out = append(out, arr...)
		}
		return out, true
	}), nil
}

func evalArrayReverse(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	return Each(vector.Dynamic, args, n, func(i int) (any, bool) {
		arr, ok := arrAt(a, i)
		if !ok {
			return nil, false
		}
		out := make([]any, len(arr))
		for j, x := range arr {
			out[len(arr)-1-j] = x
		}
		return out, true
	}), nil
}

func evalArraySum(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	return Each(vector.Float, args, n, func(i int) (float64, bool) {
		arr, ok := arrAt(a, i)
		if !ok {
			return 0, false
		}
		sum := 0.0
		for _, x := range arr {
			if f, ok := arrNum(x); ok {
				sum += f
			}
		}
		return sum, true
	}), nil
}

func evalStrcatArray(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	return Each(vector.String, args, n, func(i int) (string, bool) {
		arr, ok := arrAt(a, i)
		if !ok {
			return "", false
		}
		delim := ""
		if len(args) > 1 {
			if delim, ok = ToString(args[1], i); !ok {
				return "", false
			}
		}
		var b strings.Builder
		for j, x := range arr {
			if j > 0 {
				b.WriteString(delim)
			}
			b.WriteString(arrString(x))
		}
		return b.String(), true
	}), nil
}
