package fn

// Test harness for the array, IP, series, GenAI and misc families: calls
// a function through the registry the way the planner and executor do
// (Result on the argument types, then Eval), and compares dynamic results
// deeply with a tolerance for reals. The b prefix keeps these helpers
// apart from other test files in this package.

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// bCase is one row-level expectation: f(args...) == want, with each
// argument a one-row vector (see bArg).
type bCase struct {
	fn   string
	args []any
	want any
}

// bArg makes a one-row argument vector. A *vector.Vector is used as is;
// otherwise the Go value picks the type: string, int, int64, float64,
// bool, or anything else (including the result of bJ) as dynamic. A
// bNull{t} is a typed null.
func bArg(x any) *vector.Vector {
	switch t := x.(type) {
	case *vector.Vector:
		return t
	case bNull:
		return xCol(t.t, nil)
	case string:
		return xCol(vector.String, t)
	case int:
		return xCol(vector.Int, int64(t))
	case int64:
		return xCol(vector.Int, t)
	case float64:
		return xCol(vector.Float, t)
	case bool:
		return xCol(vector.Bool, t)
	}
	return xCol(vector.Dynamic, x)
}

// bNull is a null argument of type t.
type bNull struct{ t vector.Type }

var (
	nullDyn = bNull{vector.Dynamic}
	nullStr = bNull{vector.String}
	nullInt = bNull{vector.Int}
)

// bJ parses JSON into aplite's dynamic representation: integers become
// int64, other numbers float64.
func bJ(s string) any {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		panic(err)
	}
	return bFromJSON(x)
}

func bFromJSON(x any) any {
	switch t := x.(type) {
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n
		}
		f, _ := t.Float64()
		return f
	case []any:
		for i := range t {
			t[i] = bFromJSON(t[i])
		}
	case map[string]any:
		for k := range t {
			t[k] = bFromJSON(t[k])
		}
	}
	return x
}

// bCall runs the function over args (all of length n) through Result and
// Eval, checks the result vector's length and type, and returns its rows.
func bCall(t *testing.T, name string, n int, args ...*vector.Vector) []any {
	t.Helper()
	f := Lookup(name)
	if f == nil {
		t.Fatalf("%s is not registered", name)
	}
	if len(args) < f.MinArgs || (f.MaxArgs >= 0 && len(args) > f.MaxArgs) {
		t.Fatalf("%s: %d arguments outside [%d, %d]", name, len(args), f.MinArgs, f.MaxArgs)
	}
	types := make([]vector.Type, len(args))
	for i, a := range args {
		types[i] = a.Type
	}
	rt, err := f.Result(types)
	if err != nil {
		t.Fatalf("%s%v: Result: %v", name, types, err)
	}
	out, err := f.Eval(&Context{}, args, Dense(n))
	if err != nil {
		t.Fatalf("%s: Eval: %v", name, err)
	}
	if out.Len != n {
		t.Fatalf("%s: result has %d rows, want %d", name, out.Len, n)
	}
	if out.Type != rt && out.Type != vector.Null {
		t.Fatalf("%s: result type %s, Result said %s", name, out.Type, rt)
	}
	return xValues(out)
}

// bRunCases checks a table of cases. Each case runs as one-row columns,
// and (unless an argument is a prebuilt vector) three more ways over three
// rows that must all give want on every row: every argument a constant;
// every argument a column with strings dictionary encoded; and the first
// argument a column with the others constant, the usual shape of
// f(field, literal).
func bRunCases(t *testing.T, cases []bCase) {
	t.Helper()
	for _, c := range cases {
		args := make([]*vector.Vector, len(c.args))
		prebuilt := false
		for i, a := range c.args {
			args[i] = bArg(a)
			_, isVec := a.(*vector.Vector)
			prebuilt = prebuilt || isVec
		}
		got := bCall(t, c.fn, 1, args...)[0]
		if !testutil.CloseValue(got, c.want, 1e-9) {
			t.Errorf("%s(%s) = %s, want %s", c.fn, bShowArgs(c.args), bShow(got), bShow(c.want))
			continue
		}
		if prebuilt {
			continue
		}
		for _, shape := range []string{"const", "dict", "column+const"} {
			const n = 3
			vs := make([]*vector.Vector, len(c.args))
			for i := range c.args {
				vs[i] = bShaped(args[i].Type, args[i].Value(0), n, shape, i)
			}
			for row, g := range bCall(t, c.fn, n, vs...) {
				if !testutil.CloseValue(g, c.want, 1e-9) {
					t.Errorf("%s(%s) as %s, row %d = %s, want %s", c.fn, bShowArgs(c.args), shape, row, bShow(g), bShow(c.want))
					break
				}
			}
		}
	}
}

// bShaped builds n rows of value x of type typ for argument i in one of
// bRunCases' shapes.
func bShaped(typ vector.Type, x any, n int, shape string, i int) *vector.Vector {
	if shape == "const" || (shape == "column+const" && i > 0) {
		return xConst(typ, x, n)
	}
	if typ == vector.String && shape == "dict" {
		vals := make([]any, n)
		for j := range vals {
			vals[j] = x
		}
		return xDict(vals...)
	}
	v := vector.New(typ, n)
	for j := 0; j < n; j++ {
		v.AppendValue(x)
	}
	return v
}

// bResultErr checks that Result rejects the argument types with an error
// mentioning want.
func bResultErr(t *testing.T, name, want string, types ...vector.Type) {
	t.Helper()
	f := Lookup(name)
	if f == nil {
		t.Fatalf("%s is not registered", name)
	}
	_, err := f.Result(types)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s%v: error %v, want one containing %q", name, types, err, want)
	}
}

func bShow(x any) string {
	if f, ok := x.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return FormatFloat(f)
	}
	return string(AppendJSON(nil, x)) + bTypeTag(x)
}

func bTypeTag(x any) string {
	switch x.(type) {
	case int64:
		return "(long)"
	case float64:
		return "(real)"
	}
	return ""
}

func bShowArgs(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		switch t := a.(type) {
		case *vector.Vector:
			parts[i] = "<" + t.Type.String() + ">"
		case bNull:
			parts[i] = t.t.String() + "(null)"
		default:
			parts[i] = bShow(a)
		}
	}
	return strings.Join(parts, ", ")
}
