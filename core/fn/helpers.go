package fn

// Shared helpers for writing functions (used by every family file).
//
// Building results
//   - Rows (rows.go) is the batch a function computes: N rows, Sel the
//     live ones. `for i := range n.Live()` is the row loop for functions
//     that write their own.
//   - Each[R](t, args, n, f): the general row loop over the live rows.
//     f(i) returns row i's value or false for null. When every argument
//     is Const it calls f(0) once and returns a Const vector.
//   - Unary / Binary / Ternary[A.., R]: Each with null propagation: each
//     argument is read with a Getter (ToString, ToInt, ...); a null or
//     unconvertible argument makes the row null without calling f.
//   - MapStrings[R](t, v, n, f): unary over a string-ish argument that runs
//     f once per distinct dictionary value (v.Codes != nil), once for a
//     Const, else per row. A string result over a dictionary input stays
//     dictionary encoded (it shares v.Codes).
//   - Out(t, n) returns an empty vector to append n rows to, for functions
//     that need their own loop; Nulls(t, n) is an all-null result.
//   - AppendLive(t, rows, add) builds a result by appending the live rows
//     and scattering them to their places (for boxed or mixed-type rows).
//   - Result R may be int64, float64, bool, string or any (dynamic); the
//     vector type t says how int64 is read (long, datetime or timespan).
//
// Reading one value with APL's conversion rules (conv_value.go)
//   - ToString, ToFloat, ToInt, ToBool, ToTime (ns since epoch), ToDuration
//     (ns), ToDynamic: each returns false for null or for a value that does
//     not convert, which APL turns into a null result.
//   - FormatFloat, FormatTime, FormatDuration and AppendJSON (conv_json.go)
//     are the text forms tostring and dynamic_to_json use.
//
// Type checking in Result rules
//   - Kind is a set of accepted argument types (KString, KInt, KNum, ...);
//     every kind accepts Null and Dynamic, which are checked at run time.
//   - Arg(name, i, got, want) returns the error
//     "argument 2 of substring must be long, got string";
//   - Sig(name, ret, kinds...) is a whole Result rule; the last kind
//     repeats for variadic functions.

import (
	"fmt"
	"strings"

	"github.com/aplite/aplite/vector"
)

// Getter reads row i of v as a T, reporting false for null or for a value
// that does not convert. ToString, ToInt, ... are Getters.
type Getter[T any] func(v *vector.Vector, i int) (T, bool)

// Out returns an empty vector of type t with room for n rows.
func Out(t vector.Type, n int) *vector.Vector { return vector.New(t, n) }

// Nulls returns n null rows of type t, as a Const vector.
func Nulls(t vector.Type, n int) *vector.Vector { return vector.NewNulls(t, n) }

// AllConst reports whether every vector is Const, so a function can compute
// its answer once.
func AllConst(args ...*vector.Vector) bool {
	for _, a := range args {
		if !a.Const {
			return false
		}
	}
	return true
}

// Each runs f for every live row of n and collects the results as a
// vector of type t and n.N rows; f returns false for a null row. Dead rows
// are left zero, as Rows' contract allows. When every argument is Const, f
// runs once and the result is Const.
func Each[R any](t vector.Type, args []*vector.Vector, n Rows, f func(i int) (R, bool)) *vector.Vector {
	if AllConst(args...) {
		r, ok := f(0)
		if !ok {
			return Nulls(t, n.N)
		}
		return finish(t, []R{r}, nil, Dense(1), n.N, true)
	}
	vals := make([]R, n.N)
	var valid vector.Bitmap
	for i := range n.Live() {
		r, ok := f(i)
		if !ok {
			valid = clearBit(valid, i, n.N)
			continue
		}
		vals[i] = r
	}
	return finish(t, vals, valid, n, n.N, false)
}

// Unary applies f to each row of a read with ga; null rows stay null.
func Unary[A, R any](t vector.Type, a *vector.Vector, n Rows, ga Getter[A], f func(A) (R, bool)) *vector.Vector {
	return Each(t, []*vector.Vector{a}, n, func(i int) (R, bool) {
		x, ok := ga(a, i)
		if !ok {
			var zero R
			return zero, false
		}
		return f(x)
	})
}

// Binary applies f row by row; a null in either argument makes the row null.
func Binary[A, B, R any](t vector.Type, a, b *vector.Vector, n Rows, ga Getter[A], gb Getter[B], f func(A, B) (R, bool)) *vector.Vector {
	return Each(t, []*vector.Vector{a, b}, n, func(i int) (R, bool) {
		x, ok1 := ga(a, i)
		y, ok2 := gb(b, i)
		if !ok1 || !ok2 {
			var zero R
			return zero, false
		}
		return f(x, y)
	})
}

// Ternary applies f row by row; a null in any argument makes the row null.
func Ternary[A, B, C, R any](t vector.Type, a, b, c *vector.Vector, n Rows, ga Getter[A], gb Getter[B], gc Getter[C], f func(A, B, C) (R, bool)) *vector.Vector {
	return Each(t, []*vector.Vector{a, b, c}, n, func(i int) (R, bool) {
		x, ok1 := ga(a, i)
		y, ok2 := gb(b, i)
		z, ok3 := gc(c, i)
		if !ok1 || !ok2 || !ok3 {
			var zero R
			return zero, false
		}
		return f(x, y, z)
	})
}

// MapStrings applies f to the string form of each live row of v. The
// point is dictionary-encoded input: f runs once per distinct value
// instead of once per row, and a string result keeps the input's codes.
// When fewer rows are live than the dictionary holds values, f runs per
// live row instead: after a selective filter the dictionary of the whole
// block is the larger set. A non-string v is converted with ToString row
// by row.
func MapStrings[R any](t vector.Type, v *vector.Vector, n Rows, f func(string) (R, bool)) *vector.Vector {
	if v.Type != vector.String || v.Codes == nil || v.Const || (n.Sel != nil && len(n.Sel) < len(v.Dict)) {
		return Unary(t, v, n, ToString, f)
	}
	vals := make([]R, len(v.Dict))
	ok := make([]bool, len(v.Dict))
	for c, s := range v.Dict {
		vals[c], ok[c] = f(s)
	}
	codes := v.Codes[:n.N]
	var valid vector.Bitmap
	for i := range n.Live() {
		if c := codes[i]; !ok[c] || (v.Valid != nil && !v.Valid.Get(i)) {
			valid = clearBit(valid, i, n.N)
		}
	}
	if strs, isStr := any(vals).([]string); isStr && t == vector.String {
		return &vector.Vector{Type: t, Len: n.N, Valid: valid, Dict: strs, Codes: codes}
	}
	out := make([]R, n.N)
	for i := range n.Live() {
		out[i] = vals[codes[i]]
	}
	return finish(t, out, valid, n, n.N, false)
}

// AppendLive builds a result by appending one row per live row of n, for
// functions whose rows come from vectors of other types or as boxed
// values (case, coalesce): add appends row i to out. Over a selection the
// appended rows are scattered to their places, so the function still
// computes the live rows only.
func AppendLive(t vector.Type, n Rows, add func(out *vector.Vector, i int)) *vector.Vector {
	out := Out(t, n.Count())
	for i := range n.Live() {
		add(out, i)
	}
	if n.Sel == nil {
		return out
	}
	return out.Scatter(n.Sel, n.N)
}

// clearBit marks row i null, creating the all-valid bitmap on first use.
func clearBit(valid vector.Bitmap, i, n int) vector.Bitmap {
	if valid == nil {
		valid = vector.NewBitmapSet(n)
	}
	valid.Clear(i)
	return valid
}

// finish wraps a result slice as a vector of type t and n rows, of which
// live holds the computed ones. The type switch runs once per batch, which
// is why the row loops can stay generic.
func finish[R any](t vector.Type, vals []R, valid vector.Bitmap, live Rows, n int, isConst bool) *vector.Vector {
	if t == vector.Null {
		return Nulls(t, n)
	}
	v := &vector.Vector{Type: t, Len: n, Valid: valid, Const: isConst}
	switch s := any(vals).(type) {
	case []int64:
		v.Ints = s
	case []float64:
		v.Floats = s
	case []bool:
		v.Bools = s
	case []string:
		v.Strs = s
	case []any:
		v.Dyns = s
		// A nil dynamic is a null row.
		for i := range live.Live() {
			if s[i] == nil {
				v.Valid = clearBit(v.Valid, i, len(s))
			}
		}
	default:
		panic(fmt.Sprintf("fn: unsupported result element type %T", vals))
	}
	return v
}

// Kind is a set of argument types a parameter accepts. Every Kind also
// accepts Null (an untyped null literal) and Dynamic (a value whose type is
// only known per row), which the Getters convert at run time.
type Kind uint16

// Of returns the Kind accepting exactly ts (plus Null and Dynamic).
func Of(ts ...vector.Type) Kind {
	var k Kind
	for _, t := range ts {
		k |= 1 << t
	}
	return k
}

// Argument kinds used in Result rules.
var (
	// KAny accepts every type.
	KAny = Of(vector.Bool, vector.Int, vector.Float, vector.String, vector.DateTime, vector.TimeSpan, vector.Dynamic)
	// KString is a string parameter; APL converts any scalar to its
	// string form there (strlen(42) is 2), so it accepts every type.
	KString = KAny
	// KInt is an integer parameter (an index, a count, a digit count).
	KInt = Of(vector.Int)
	// KNum is a numeric parameter.
	KNum = Of(vector.Int, vector.Float)
	// KBool is a boolean parameter.
	KBool = Of(vector.Bool)
	// KTime is a datetime parameter; strings are parsed as datetimes.
	KTime = Of(vector.DateTime, vector.String)
	// KSpan is a timespan parameter.
	KSpan = Of(vector.TimeSpan)
	// KDyn is a dynamic (array or bag) parameter.
	KDyn = Of(vector.Dynamic)
)

// Accepts reports whether an argument of type t fits k.
func (k Kind) Accepts(t vector.Type) bool {
	return t == vector.Null || t == vector.Dynamic || k&(1<<t) != 0
}

// String names the accepted types for error messages: "long or real".
func (k Kind) String() string {
	var names []string
	for t := vector.Bool; t <= vector.Dynamic; t++ {
		if k&(1<<t) != 0 {
			names = append(names, t.String())
		}
	}
	if len(names) == 0 {
		return "null"
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Arg checks argument i (0-based) of function name against want and
// returns an error such as "argument 2 of substring must be long, got
// string", or nil.
func Arg(name string, i int, got vector.Type, want Kind) error {
	if want.Accepts(got) {
		return nil
	}
	return fmt.Errorf("argument %d of %s must be %s, got %s", i+1, name, want, got)
}

// CheckArgs checks every argument against kinds; the last kind covers any
// further arguments of a variadic function.
func CheckArgs(name string, args []vector.Type, kinds ...Kind) error {
	for i, t := range args {
		k := KAny
		if len(kinds) > 0 {
			k = kinds[min(i, len(kinds)-1)]
		}
		if err := Arg(name, i, t, k); err != nil {
			return err
		}
	}
	return nil
}

// Sig returns a Result rule that checks the arguments against kinds and
// returns ret.
func Sig(name string, ret vector.Type, kinds ...Kind) func([]vector.Type) (vector.Type, error) {
	return func(args []vector.Type) (vector.Type, error) {
		if err := CheckArgs(name, args, kinds...); err != nil {
			return vector.Null, err
		}
		return ret, nil
	}
}
