package fn

import (
	"time"

	"github.com/aplite/aplite/vector"
)

// Null and emptiness tests, gettype and coalesce. They accept every type:
// in Axiom any field may be missing, and a missing field reads as null.

func init() {
	Register(&Func{Name: "isnull", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: nullTest(false, false),
		Doc: "True when the argument is null."})
	Register(&Func{Name: "isnotnull", Aliases: []string{"notnull"}, Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: nullTest(true, false),
		Doc: "True when the argument is not null."})
	Register(&Func{Name: "isempty", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: nullTest(false, true),
		Doc: "True when the argument is null or an empty string."})
	Register(&Func{Name: "isnotempty", Aliases: []string{"notempty"}, Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.Bool), Eval: nullTest(true, true),
		Doc: "True when the argument is neither null nor an empty string."})
	Register(&Func{Name: "gettype", Family: famString, MinArgs: 1, MaxArgs: 1,
		Result: Fixed(vector.String), Eval: evalGettype,
		Doc: "Runtime type of the argument: string, int, real, bool, datetime, timespan, array, dictionary or null."})
	Register(&Func{Name: "coalesce", Family: famString, MinArgs: 1, MaxArgs: 64,
		Result: coalesceResult, Eval: evalCoalesce,
		Doc: "First argument that is not null (and, for strings, not empty)."})
}

// isEmptyAt reports whether row i is null or an empty string.
func isEmptyAt(v *vector.Vector, i int) bool {
	if v.IsNull(i) {
		return true
	}
	switch v.Type {
	case vector.String:
		return v.Str(i) == ""
	case vector.Dynamic:
		s, ok := v.Dyn(i).(string)
		return ok && s == ""
	}
	return false
}

// nullTest builds isnull/isnotnull (empty=false) and isempty/isnotempty.
func nullTest(negate, empty bool) EvalFunc {
	return func(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
		a := args[0]
		test := a.IsNull
		if empty {
			test = func(i int) bool { return isEmptyAt(a, i) }
		}
		if a.Type == vector.String && a.Codes != nil && !a.Const && a.Valid == nil {
			return MapStrings(vector.Bool, a, n, func(s string) (bool, bool) { return (s == "" && empty) != negate, true }), nil
		}
		return Each(vector.Bool, args, n, func(i int) (bool, bool) { return test(i) != negate, true }), nil
	}
}

func evalGettype(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	a := args[0]
	return Each(vector.String, args, n, func(i int) (string, bool) { return typeName(a, i), true }), nil
}

// typeName is gettype's answer for row i. Axiom's docs name long "int".
func typeName(v *vector.Vector, i int) string {
	if v.IsNull(i) {
		return "null"
	}
	switch v.Type {
	case vector.Bool:
		return "bool"
	case vector.Int:
		return "int"
	case vector.Float:
		return "real"
	case vector.String:
		return "string"
	case vector.DateTime:
		return "datetime"
	case vector.TimeSpan:
		return "timespan"
	}
	return dynTypeName(v.Dyn(i))
}

func dynTypeName(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int64, int:
		return "int"
	case float64:
		return "real"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "dictionary"
	case time.Time:
		return "datetime"
	case time.Duration:
		return "timespan"
	}
	return "dynamic"
}

// coalesceResult is the common type of the arguments: their type when they
// agree (ignoring untyped nulls), real for a mix of long and real,
// dynamic otherwise.
func coalesceResult(args []vector.Type) (vector.Type, error) {
	return commonType(args), nil
}

func commonType(ts []vector.Type) vector.Type {
	out := vector.Null
	for _, t := range ts {
		switch {
		case t == vector.Null || t == out:
		case out == vector.Null:
			out = t
		case out.IsNumeric() && t.IsNumeric():
			out = vector.Float
		default:
			return vector.Dynamic
		}
	}
	return out
}

func evalCoalesce(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	types := make([]vector.Type, len(args))
	for i, a := range args {
		types[i] = a.Type
	}
	t := commonType(types)
	if AllConst(args...) {
		return vector.NewConst(t, coalesceAt(args, 0, t), n.N), nil
	}
	return AppendLive(t, n, func(out *vector.Vector, i int) { out.AppendValue(coalesceAt(args, i, t)) }), nil
}

// coalesceAt returns the first usable value of row i, boxed for type t.
func coalesceAt(args []*vector.Vector, i int, t vector.Type) any {
	for _, a := range args {
		if isEmptyAt(a, i) && (a.Type == vector.String || a.IsNull(i)) {
			continue
		}
		if t == vector.Dynamic {
			x, _ := ToDynamic(a, i)
			return x
		}
		return a.Value(i)
	}
	return nil
}
