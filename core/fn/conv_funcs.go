package fn

import (
	"strconv"
	"strings"

	"github.com/aplite/aplite/vector"
)

// Conversion functions. A value that does not convert gives null, never
// an error. ensure_field is not here: it needs the dataset schema, so the
// planner resolves it.

const famConv = "conversion"

func init() {
	Register(&Func{Name: "tostring", Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.String), Eval: evalTostring,
		Doc: "String form of a value: shortest numbers, RFC 3339 datetimes, Go-style timespans, compact JSON for dynamic; null gives \"\"."})
	Register(&Func{Name: "tolong", Aliases: []string{"toint"}, Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Int), Eval: convEval(vector.Int, ToInt),
		Doc: "Converts to a 64-bit integer; reals are truncated, strings parsed; null when it does not convert."})
	Register(&Func{Name: "todouble", Aliases: []string{"toreal"}, Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Float), Eval: convEval(vector.Float, ToFloat),
		Doc: "Converts to a real; null when it does not convert."})
	Register(&Func{Name: "tobool", Aliases: []string{"toboolean"}, Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: convEval(vector.Bool, ToBool),
		Doc: "Converts to a bool: true/false (any case), non-zero numbers are true; null otherwise."})
	Register(&Func{Name: "todatetime", Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.DateTime), Eval: convEval(vector.DateTime, ToTime),
		Doc: "Parses a datetime (ISO 8601 / RFC 3339 and RFC 822/850/1123 forms, UTC when no zone); null otherwise."})
	Register(&Func{Name: "totimespan", Aliases: []string{"totime"}, Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.TimeSpan), Eval: convEval(vector.TimeSpan, ToDuration),
		Doc: "Converts to a timespan: numbers are nanoseconds, strings like \"1.5h\", \"00:03:00\" or \"1h30m\" are parsed."})
	Register(&Func{Name: "todynamic", Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Dynamic), Eval: evalParseJSON,
		Doc: "Converts to dynamic; strings are parsed as JSON (parse_json)."})
	Register(&Func{Name: "dynamic_to_json", Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.String), Eval: evalDynamicToJSON,
		Doc: "Canonical JSON text of a dynamic value, type string as Axiom's page says (object keys sorted); a value that is not dynamic is its tostring() form, as the page's first rule says."})
	Register(&Func{Name: "toarray", Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Dynamic), Eval: evalToarray,
		Doc: "An array stays as is; any other non-null value becomes a one-element array."})
	Register(&Func{Name: "isbool", Family: famConv, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: typeTest(func(x any) bool { _, ok := x.(bool); return ok }),
		Doc: "True when the value is a bool."})
	Register(&Func{Name: "tohex", Family: famConv, MinArgs: 1, MaxArgs: 2,
		Result: Sig("tohex", vector.String, KInt, KInt), Eval: evalTohex,
		Doc: "tohex(value[, minLength]): lower-case hex of a long (two's complement when negative), zero-padded to minLength."})
}

// convEval adapts a Getter to a conversion function, with a fast path for
// a dictionary-encoded string column.
func convEval[T any](t vector.Type, get Getter[T]) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		a := args[0]
		if a.Type == vector.String {
			probe := strProbe()
			return MapStrings(t, a, n, func(s string) (T, bool) {
				probe.Strs[0] = s
				return get(probe, 0)
			}), nil
		}
		return Unary(t, a, n, get, func(x T) (T, bool) { return x, true }), nil
	}
}

// strProbe is a one-row string vector used to run a Getter on a single
// dictionary value.
func strProbe() *vector.Vector {
	return &vector.Vector{Type: vector.String, Len: 1, Strs: []string{""}}
}

func evalTostring(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	if a.Type == vector.String && a.Valid == nil {
		return a, nil
	}
	return Each(vector.String, args, n, func(i int) (string, bool) {
		s, _ := ToString(a, i)
		return s, true
	}), nil
}

func evalDynamicToJSON(ctx *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	if a.Type != vector.Dynamic && a.Type != vector.Null {
		return evalTostring(ctx, args, n)
	}
	return Each(vector.String, args, n, func(i int) (string, bool) {
		x, _ := ToDynamic(a, i)
		return string(AppendJSON(nil, x)), true
	}), nil
}

func evalToarray(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Unary(vector.Dynamic, args[0], n, ToDynamic, func(x any) (any, bool) {
		if arr, ok := x.([]any); ok {
			return arr, true
		}
		return []any{x}, true
	}), nil
}

// typeTest builds a bool function that inspects a row's dynamic value;
// null rows answer false.
func typeTest(pred func(any) bool) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		a := args[0]
		return Each(vector.Bool, args, n, func(i int) (bool, bool) {
			x, ok := ToDynamic(a, i)
			return ok && pred(x), true
		}), nil
	}
}

func evalTohex(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return Each(vector.String, args, n, func(i int) (string, bool) {
		v, ok1 := ToInt(args[0], i)
		width, ok2 := optInt(args, 1, i, 0)
		if !ok1 || !ok2 {
			return "", false
		}
		h := strconv.FormatUint(uint64(v), 16)
		if pad := int(min(width, 64)) - len(h); pad > 0 {
			h = strings.Repeat("0", pad) + h
		}
		return h, true
	}), nil
}
