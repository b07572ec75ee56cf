package fn

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

// Test vector builders. A nil element is a null row. Their x prefix keeps
// them apart from other test files in this package.

func xCol(t vector.Type, vals ...any) *vector.Vector {
	v := vector.New(t, len(vals))
	for _, x := range vals {
		v.AppendValue(x)
	}
	return v
}

func xConst(t vector.Type, val any, n int) *vector.Vector { return vector.NewConst(t, val, n) }

// xDict builds a dictionary-encoded string column.
func xDict(vals ...any) *vector.Vector {
	v := &vector.Vector{Type: vector.String}
	idx := map[string]uint32{}
	for _, x := range vals {
		s, _ := x.(string)
		c, ok := idx[s]
		if !ok {
			c = uint32(len(v.Dict))
			idx[s] = c
			v.Dict = append(v.Dict, s)
		}
		v.Codes = append(v.Codes, c)
		if x == nil {
			if v.Valid == nil {
				v.Valid = vector.NewBitmapSet(len(vals))
			}
			v.Valid.Clear(v.Len)
		}
		v.Len++
	}
	return v
}

// xValues returns every row of v boxed, so results of any encoding compare.
func xValues(v *vector.Vector) []any {
	out := make([]any, v.Len)
	for i := range out {
		out[i] = v.Value(i)
	}
	return out
}

func TestEachConstComputesOnce(t *testing.T) {
	calls := 0
	a := xConst(vector.Int, int64(4), 100)
	out := Unary(vector.Int, a, Dense(100), ToInt, func(x int64) (int64, bool) { calls++; return x * 2, true })
	if calls != 1 || !out.Const || out.Len != 100 || out.Int(57) != 8 {
		t.Fatalf("calls=%d const=%v len=%d", calls, out.Const, out.Len)
	}
}

func TestUnaryPropagatesNull(t *testing.T) {
	a := xCol(vector.Int, int64(1), nil, int64(3))
	out := Unary(vector.Int, a, Dense(3), ToInt, func(x int64) (int64, bool) { return -x, true })
	want := []any{int64(-1), nil, int64(-3)}
	if got := xValues(out); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestMapStringsDictOncePerValue(t *testing.T) {
	d := xDict("a", "b", "a", nil, "b", "a")
	calls := 0
	out := MapStrings(vector.String, d, Dense(6), func(s string) (string, bool) { calls++; return s + "!", s != "b" })
	if calls != len(d.Dict) {
		t.Fatalf("f ran %d times for %d distinct values", calls, len(d.Dict))
	}
	want := []any{"a!", nil, "a!", nil, nil, "a!"}
	if got := xValues(out); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
	if out.Codes == nil {
		t.Fatal("string result over a dictionary should stay dictionary encoded")
	}
	lens := MapStrings(vector.Int, d, Dense(6), func(s string) (int64, bool) { return int64(len(s)), true })
	if got := xValues(lens); !reflect.DeepEqual(got, []any{int64(1), int64(1), int64(1), nil, int64(1), int64(1)}) {
		t.Fatalf("got %v", got)
	}
}

func TestToString(t *testing.T) {
	ts := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		v    *vector.Vector
		want any
	}{
		{xCol(vector.Int, int64(-42)), "-42"},
		{xCol(vector.Float, 1.0), "1"},
		{xCol(vector.Float, 0.1), "0.1"},
		{xCol(vector.Float, 1e21), "1e+21"},
		{xCol(vector.Float, 1e-7), "1e-7"},
		{xCol(vector.Float, math.NaN()), "NaN"},
		{xCol(vector.Bool, true), "true"},
		{xCol(vector.DateTime, ts), "2024-01-02T03:04:05Z"},
		{xCol(vector.DateTime, ts.Add(500*time.Millisecond)), "2024-01-02T03:04:05.5Z"},
		{xCol(vector.TimeSpan, 90*time.Minute), "1h30m0s"},
		{xCol(vector.Dynamic, map[string]any{"b": int64(1), "a": []any{"x<", 2.5, nil}}), `{"a":["x<",2.5,null],"b":1}`},
		{xCol(vector.Dynamic, "plain"), "plain"},
		{xCol(vector.String, nil), nil},
		{vector.NewNulls(vector.Null, 1), nil},
	}
	for _, c := range cases {
		s, ok := ToString(c.v, 0)
		var got any
		if ok {
			got = s
		}
		if got != c.want {
			t.Errorf("ToString(%v) = %v, want %v", c.v.Value(0), got, c.want)
		}
	}
}

func TestNumericConversions(t *testing.T) {
	if n, ok := ToInt(xCol(vector.String, " 0x1F "), 0); !ok || n != 31 {
		t.Errorf("hex: %d %v", n, ok)
	}
	if n, ok := ToInt(xCol(vector.String, "2.9"), 0); !ok || n != 2 {
		t.Errorf("real string: %d %v", n, ok)
	}
	if _, ok := ToInt(xCol(vector.Float, math.Inf(1)), 0); ok {
		t.Error("+Inf should not convert to long")
	}
	if _, ok := ToInt(xCol(vector.String, "abc"), 0); ok {
		t.Error("abc should not convert to long")
	}
	if f, ok := ToFloat(xCol(vector.Dynamic, true), 0); !ok || f != 1 {
		t.Errorf("bool to real: %v %v", f, ok)
	}
	if b, ok := ToBool(xCol(vector.String, "TRUE"), 0); !ok || !b {
		t.Errorf("TRUE: %v %v", b, ok)
	}
	if _, ok := ToBool(xCol(vector.String, "yes"), 0); ok {
		t.Error("yes should not convert to bool")
	}
}

func TestParseTimeAndDuration(t *testing.T) {
	want := time.Date(2024, 1, 15, 14, 0, 0, 0, time.UTC).UnixNano()
	for _, s := range []string{"2024-01-15T14:00:00Z", "2024-01-15 14:00:00", "2024-01-15T16:00:00+02:00", "2024-01-15 14:00", "Mon, 15 Jan 2024 14:00:00 GMT"} {
		if got, ok := ParseTime(s); !ok || got != want {
			t.Errorf("ParseTime(%q) = %v, %v", s, time.Unix(0, got).UTC(), ok)
		}
	}
	if _, ok := ParseTime("yesterday"); ok {
		t.Error("yesterday parsed")
	}
	durs := map[string]time.Duration{
		"2d": 48 * time.Hour, "1.5h": 90 * time.Minute, "100ms": 100 * time.Millisecond, "20min": 20 * time.Minute,
		"1h30m": 90 * time.Minute, "00:03:00": 3 * time.Minute, "1.00:00:00": 24 * time.Hour,
		"00:00:01.5": 1500 * time.Millisecond, "-00:00:01": -time.Second, "10ticks": time.Microsecond,
	}
	for s, d := range durs {
		if got, ok := ParseDuration(s); !ok || got != int64(d) {
			t.Errorf("ParseDuration(%q) = %v, %v, want %v", s, time.Duration(got), ok, d)
		}
	}
	for _, s := range []string{"", "abc", "1x", "00:61:00"} {
		if _, ok := ParseDuration(s); ok {
			t.Errorf("ParseDuration(%q) should fail", s)
		}
	}
}

func TestArgErrors(t *testing.T) {
	rule := Sig("substring", vector.String, KString, KInt, KInt)
	if _, err := rule([]vector.Type{vector.String, vector.String}); err == nil || err.Error() != "argument 2 of substring must be long, got string" {
		t.Fatalf("err = %v", err)
	}
	if typ, err := rule([]vector.Type{vector.Int, vector.Null, vector.Dynamic}); err != nil || typ != vector.String {
		t.Fatalf("null and dynamic should pass: %v %v", typ, err)
	}
	if got := KNum.String(); got != "long or real" {
		t.Fatalf("KNum = %q", got)
	}
}
