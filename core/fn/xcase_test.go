package fn

import (
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// xCase is one call of a registered function with scalar arguments and
// the expected value (nil for null). xRunCases evaluates each case three
// ways, all of which must agree with want on every row:
//   - every argument a Const vector,
//   - every argument a plain column,
//   - string arguments dictionary encoded (other arguments plain).
type xCase struct {
	fn   string
	args []any
	want any
}

// xTyped is an argument with an explicit type, for typed nulls such as a
// null string.
type xTyped struct {
	t vector.Type
	v any
}

func xTypeOf(x any) (vector.Type, any) {
	switch t := x.(type) {
	case xTyped:
		return t.t, t.v
	case nil:
		return vector.Null, nil
	case bool:
		return vector.Bool, t
	case int:
		return vector.Int, int64(t)
	case int64:
		return vector.Int, t
	case float64:
		return vector.Float, t
	case string:
		return vector.String, t
	case time.Time:
		return vector.DateTime, t
	case time.Duration:
		return vector.TimeSpan, t
	}
	return vector.Dynamic, x
}

const xRows = 3

// xArgs builds the argument vectors of c in one of the three layouts.
func xArgs(c xCase, layout int) ([]*vector.Vector, []vector.Type) {
	vs := make([]*vector.Vector, len(c.args))
	ts := make([]vector.Type, len(c.args))
	for j, a := range c.args {
		t, v := xTypeOf(a)
		ts[j] = t
		switch {
		case layout == 0:
			vs[j] = xConst(t, v, xRows)
		case layout == 2 && t == vector.String:
			vals := make([]any, xRows)
			for k := range vals {
				vals[k] = v
			}
			vs[j] = xDict(vals...)
		case t == vector.Null:
			vs[j] = vector.NewNulls(vector.Null, xRows)
			vs[j].Const = false
		default:
			vals := make([]any, xRows)
			for k := range vals {
				vals[k] = v
			}
			vs[j] = xCol(t, vals...)
		}
	}
	return vs, ts
}

// xCall evaluates function name on vs, checking its Result rule first.
func xCall(name string, vs []*vector.Vector, ts []vector.Type, n int) (*vector.Vector, error) {
	f := Lookup(name)
	if f == nil {
		return nil, fmt.Errorf("%s is not registered", name)
	}
	if len(vs) < f.MinArgs || (f.MaxArgs >= 0 && len(vs) > f.MaxArgs) {
		return nil, fmt.Errorf("%s: %d arguments outside [%d, %d]", name, len(vs), f.MinArgs, f.MaxArgs)
	}
	rt, err := f.Result(ts)
	if err != nil {
		return nil, err
	}
	out, err := f.Eval(&Context{Now: xNow, Start: xNow.Add(-time.Hour), End: xNow}, vs, Dense(n))
	if err != nil {
		return nil, err
	}
	if out.Len != n {
		return nil, fmt.Errorf("%s returned %d rows, want %d", name, out.Len, n)
	}
	if out.Type != rt && !(out.Type == vector.Null) {
		return nil, fmt.Errorf("%s: Result said %v, Eval returned %v", name, rt, out.Type)
	}
	return out, nil
}

// xNow is the fixed query time of the tests.
var xNow = time.Date(2024, 3, 15, 10, 30, 0, 0, time.UTC)

func xRunCases(t *testing.T, cases []xCase) {
	t.Helper()
	for _, c := range cases {
		for layout := 0; layout < 3; layout++ {
			vs, ts := xArgs(c, layout)
			out, err := xCall(c.fn, vs, ts, xRows)
			if err != nil {
				t.Errorf("%s%v: %v", c.fn, c.args, err)
				break
			}
			for i := 0; i < xRows; i++ {
				if got := out.Value(i); !testutil.CloseValue(got, c.want, 1e-9) {
					t.Errorf("%s%v layout %d row %d = %#v, want %#v", c.fn, c.args, layout, i, got, c.want)
					break
				}
			}
		}
	}
}

// xTypeErr is a call whose Result rule must fail with message want.
type xTypeErr struct {
	fn   string
	args []vector.Type
	want string
}

func xRunTypeErrs(t *testing.T, cases []xTypeErr) {
	t.Helper()
	for _, c := range cases {
		f := Lookup(c.fn)
		if f == nil {
			t.Errorf("%s is not registered", c.fn)
			continue
		}
		_, err := f.Result(c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s%v: error %v, want %q", c.fn, c.args, err, c.want)
		}
	}
}
