package plan

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// constCases are constants of every type with the values that break a
// careless encoding: int64 beyond float64's 53 bits, NaN, ±Inf, -0,
// datetimes before the epoch, nested dynamic values of every kind.
var constCases = []struct {
	t vector.Type
	v any
}{
	{vector.Null, nil},
	{vector.Bool, true},
	{vector.Bool, false},
	{vector.Int, int64(math.MaxInt64)},
	{vector.Int, int64(math.MinInt64)},
	{vector.Int, int64(1<<53 + 1)},
	{vector.Int, nil},
	{vector.Float, math.NaN()},
	{vector.Float, math.Inf(1)},
	{vector.Float, math.Inf(-1)},
	{vector.Float, math.Copysign(0, -1)},
	{vector.Float, 0.1},
	{vector.Float, math.SmallestNonzeroFloat64},
	{vector.Float, math.MaxFloat64},
	{vector.String, ""},
	{vector.String, "a\x00\"\\ü\U0001F600"},
	{vector.DateTime, time.Unix(0, math.MinInt64).UTC()},
	{vector.DateTime, time.Date(2024, 3, 27, 1, 2, 3, 999999999, time.UTC)},
	{vector.TimeSpan, time.Duration(math.MaxInt64)},
	{vector.TimeSpan, -time.Nanosecond},
	{vector.Dynamic, int64(math.MinInt64)},
	{vector.Dynamic, []any{int64(1), 2.5, "x", true, nil, []any{}, map[string]any{}}},
	{vector.Dynamic, map[string]any{"b": map[string]any{"n": int64(1<<62 + 3)}, "a": []any{math.Inf(-1)},
		"t": time.Unix(0, 5).UTC(), "d": time.Duration(-7)}},
}

func TestConstRoundTrip(t *testing.T) {
	for _, c := range constCases {
		in := &Fragment{V: Version, Stages: []Stage{{Kind: SProject, Exprs: []*Expr{Const(c.t, c.v, &Pos{1, 2})}}}}
		js, err := in.Encode()
		if err != nil {
			t.Fatalf("%s %v: %v", c.t, c.v, err)
		}
		out, err := Decode(js)
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", c.t, c.v, err, js)
		}
		e := out.Stages[0].Exprs[0]
		if e.Type != c.t || *e.Pos != (Pos{1, 2}) || !testutil.SameValue(e.ConstValue(), c.v) {
			t.Errorf("%s %#v came back as %s %#v\n%s", c.t, c.v, e.Type, e.ConstValue(), js)
		}
		again, _ := out.Encode()
		if !bytes.Equal(again, js) {
			t.Errorf("%s %v: re-encoded\n%s\nwas\n%s", c.t, c.v, again, js)
		}
	}
}

// A whole fragment, with every stage kind, encodes to the same bytes
// each time and decodes to what was encoded.
func TestFragmentRoundTrip(t *testing.T) {
	lo := int64(-5)
	col := Col(0, "status", vector.Int, nil)
	five := Const(vector.Int, int64(5), &Pos{3, 9})
	cmp := Node(KCmp, vector.Bool, ">=", &Pos{3, 1}, col, five)
	in := &Fragment{V: Version, Scan: Scan{Dataset: "logs", Parts: []string{"a.blk"}, Lo: &lo,
		Schema: []Field{{"status", vector.Int}, {"uri", vector.String}}},
		Stages: []Stage{
			{Kind: SWhere, Pred: Node(KLogic, vector.Bool, "and", nil, cmp, Node(KNot, vector.Bool, "", nil, cmp))},
			{Kind: SExtend, Exprs: []*Expr{Node(KSlice, vector.String, "", nil, Col(1, "uri", vector.String, nil), nil, five)},
				Slots: []int{2}, Valid: true},
			{Kind: SPick, Idx: []int{1, 0}},
			{Kind: SSummarize, Keys: []*Expr{col}, Aggs: []Agg{{Name: "count", Outs: []string{"count_"}}}, TimeKey: -1, BinCol: -1},
		}}
	js, err := in.Encode()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode(js)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("decoded\n%+v\nencoded\n%+v", out, in)
	}
	if again, _ := out.Encode(); !bytes.Equal(again, js) {
		t.Fatalf("re-encoded\n%s\nwas\n%s", again, js)
	}
}

// A plan this node cannot read is refused by name before anything runs.
func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct{ js, want string }{
		{`{"v":3,"scan":{"dataset":"logs","parts":[],"schema":[]},"stages":[{"k":"where","what":{}}]}`, "version 3"},
		{`{"v":0}`, "version 0"},
		{`{"v":1,"scan":{},"stages":[{"k":"teleport","schema":[]}]}`, `stage kind "teleport"`},
		{`{"v":1,"scan":{},"stages":[{"k":"where","schema":[],"pred":{"k":"quantum","t":1}}]}`, `expression kind "quantum"`},
		{`{"v":1,"scan":{},"stages":[{"k":"project","schema":[],"exprs":[{"k":"const","t":42,"v":"1"}]}]}`, "type 42"},
		{`{"v":1,"scan":{},"stages":[{"k":"project","schema":[],"exprs":[{"k":"const","t":7,"v":{"z":1}}]}]}`, `dynamic value tag "z"`},
	} {
		_, err := Decode([]byte(c.js))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrUnsupported naming %s", c.js, err, c.want)
		}
	}
	bad := `{"v":1,"scan":{},"stages":[{"k":"count","schema":[]},{"k":"where","schema":[]}]}`
	if _, err := Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "not the last") {
		t.Errorf("a blocking stage before another decoded: %v", err)
	}
	if _, err := Decode([]byte(`{"v":1,"stages":[{"k":"project","schema":[],"exprs":[{"k":"const","t":2,"v":"1.5"}]}]}`)); err == nil {
		t.Error("a long constant of 1.5 decoded")
	}
}

// A rest scan (the ingest node's unflushed events) travels only in a
// version 2 fragment, and a version 2 fragment only with one: a reader of
// version 1 alone refuses it instead of reading the listed blocks.
func TestRestScanVersion(t *testing.T) {
	for _, c := range []struct {
		js string
		ok bool
	}{
		{`{"v":2,"scan":{"dataset":"logs","parts":["a"],"schema":[],"rest":true},"stages":[]}`, true},
		{`{"v":2,"scan":{"dataset":"logs","parts":["a"],"schema":[]},"stages":[]}`, false},
		{`{"v":1,"scan":{"dataset":"logs","parts":["a"],"schema":[],"rest":true},"stages":[]}`, false},
	} {
		f, err := Decode([]byte(c.js))
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.js, err)
		}
		if err == nil && (!f.Scan.Rest || f.V != RestVersion) {
			t.Errorf("%s: decoded %+v", c.js, f.Scan)
		}
	}
}
