package parser

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// posAt computes the 1-based line and rune column of a byte offset, the
// reference the parser's spans are checked against.
func posAt(src string, off int) (line, col int) {
	line, col = 1, 1
	for _, r := range src[:off] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// checkSpans asserts for every node that its span lies inside the
// source, that line/col agree with the byte offset, and that children lie
// inside their parent.
func checkSpans(t *testing.T, src string, root Node) {
	t.Helper()
	var stack []Node
	var visit func(n Node)
	visit = func(n Node) {
		sp := n.Span()
		if sp.Start.Offset < 0 || sp.Start.Offset > sp.End.Offset || sp.End.Offset > len(src) {
			t.Errorf("%T span %+v outside source %q", n, sp, src)
			return
		}
		for _, p := range []Pos{sp.Start, sp.End} {
			if l, c := posAt(src, p.Offset); l != p.Line || c != p.Col {
				t.Errorf("%T at offset %d says %d:%d, want %d:%d in %q", n, p.Offset, p.Line, p.Col, l, c, src)
			}
		}
		if len(stack) > 0 {
			ps := stack[len(stack)-1].Span()
			if sp.Start.Offset < ps.Start.Offset || sp.End.Offset > ps.End.Offset {
				t.Errorf("%T span %d-%d not inside parent %T %d-%d in %q", n, sp.Start.Offset, sp.End.Offset, stack[len(stack)-1], ps.Start.Offset, ps.End.Offset, src)
			}
		}
		stack = append(stack, n)
		Walk(n, func(c Node) bool {
			if c != n {
				visit(c)
				return false
			}
			return true
		})
		stack = stack[:len(stack)-1]
	}
	visit(root)
}

func TestSpansOfGoldenQueries(t *testing.T) {
	for _, file := range queryFiles(t) {
		if filepath.Base(file) == "errors.txt" {
			continue
		}
		for _, src := range readQueries(t, file) {
			q, err := Parse(src)
			if err != nil {
				continue // reported by TestGoldenQueries
			}
			checkSpans(t, src, q)
		}
	}
}

func TestSpanPositions(t *testing.T) {
	src := "logs\n| where \"é\" == 1 and b > 2"
	q, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	w := q.Body.Ops[0].(*WhereOp)
	if got := w.Sp; got.Start != (Pos{Offset: 7, Line: 2, Col: 3}) || got.End != (Pos{Offset: len(src), Line: 2, Col: 27}) {
		t.Errorf("where span = %+v", got)
	}
	and := w.Pred.(*BinaryExpr)
	if and.Op != "and" || and.OpPos != (Pos{Offset: 23, Line: 2, Col: 18}) {
		t.Errorf("and at %+v (%s)", and.OpPos, and.Op)
	}
	eq := and.L.(*BinaryExpr)
	if lit := eq.L.(*Literal); lit.Sp.Start.Col != 9 || lit.Sp.End.Col != 12 {
		t.Errorf(`"é" spans cols %d-%d, want 9-12 (runes, not bytes)`, lit.Sp.Start.Col, lit.Sp.End.Col)
	}
}

func TestLiteralValues(t *testing.T) {
	ts := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v }
	cases := []struct {
		src  string
		kind LitKind
		typ  vector.Type
		want any
	}{
		{"42", LitInt, vector.Int, int64(42)},
		{"0x1F", LitInt, vector.Int, int64(31)},
		{"-9223372036854775808", LitInt, vector.Int, int64(math.MinInt64)},
		{"long(-11)", LitInt, vector.Int, int64(-11)},
		{"1e3", LitReal, vector.Float, 1000.0},
		{"1.5e-3", LitReal, vector.Float, 0.0015},
		{"real(2)", LitReal, vector.Float, 2.0},
		{"real(-inf)", LitReal, vector.Float, math.Inf(-1)},
		{"True", LitBool, vector.Bool, true},
		{"bool(false)", LitBool, vector.Bool, false},
		{`'it\'s'`, LitString, vector.String, "it's"},
		{`"\u00e9\t"`, LitString, vector.String, "é\t"},
		{`@"a""b\n"`, LitString, vector.String, `a"b\n`},
		{"1.5h", LitTimeSpan, vector.TimeSpan, 90 * time.Minute},
		{"1tick", LitTimeSpan, vector.TimeSpan, 100 * time.Nanosecond},
		{"2days", LitTimeSpan, vector.TimeSpan, 48 * time.Hour},
		{"10microseconds", LitTimeSpan, vector.TimeSpan, 10 * time.Microsecond},
		{"-30m", LitTimeSpan, vector.TimeSpan, -30 * time.Minute},
		{"timespan(1.02:03:04.5)", LitTimeSpan, vector.TimeSpan, 26*time.Hour + 3*time.Minute + 4500*time.Millisecond},
		{"time(15s)", LitTimeSpan, vector.TimeSpan, 15 * time.Second},
		{"datetime(2019-11-30 23:59:59.9)", LitDateTime, vector.DateTime, ts("2019-11-30T23:59:59.9Z")},
		{"datetime(2015-12-31)", LitDateTime, vector.DateTime, ts("2015-12-31T00:00:00Z")},
		{`datetime("2024-01-15T14:00:00+01:00")`, LitDateTime, vector.DateTime, ts("2024-01-15T13:00:00Z")},
		{"datetime(null)", LitNull, vector.DateTime, nil},
		{"int(null)", LitNull, vector.Int, nil},
		{"dynamic(null)", LitNull, vector.Dynamic, nil},
		{`dynamic([1, 2.5, "x", null, true, {"k": [-1]}])`, LitDynamic, vector.Dynamic,
			[]any{int64(1), 2.5, "x", nil, true, map[string]any{"k": []any{int64(-1)}}}},
	}
	for _, c := range cases {
		e, err := ParseExpr(c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		l, ok := e.(*Literal)
		if !ok {
			t.Errorf("%s: got %T, want *Literal", c.src, e)
			continue
		}
		if l.Kind != c.kind || l.Type != c.typ || !reflect.DeepEqual(l.Value, c.want) {
			if tv, ok := l.Value.(time.Time); ok && tv.Equal(c.want.(time.Time)) && tv.Location() == time.UTC {
				continue
			}
			t.Errorf("%s: got kind %d type %s value %#v, want kind %d type %s value %#v", c.src, l.Kind, l.Type, l.Value, c.kind, c.typ, c.want)
		}
	}
	if e, _ := ParseExpr("real(nan)"); e == nil || !math.IsNaN(e.(*Literal).Value.(float64)) {
		t.Error("real(nan) is not NaN")
	}
}

func TestSortDefaultIsDescending(t *testing.T) {
	q, err := Parse("T | sort by a, b asc, c desc | top 3 by d")
	if err != nil {
		t.Fatal(err)
	}
	keys := q.Body.Ops[0].(*SortOp).Keys
	if !keys[0].Desc || keys[1].Desc || !keys[2].Desc || keys[0].Dir != "" {
		t.Errorf("sort keys: %+v %+v %+v", keys[0], keys[1], keys[2])
	}
	if !q.Body.Ops[1].(*TopOp).Key.Desc {
		t.Error("top default should be descending")
	}
}

func TestParseExpr(t *testing.T) {
	good := map[string]string{
		"a + b * 2":                     "a + b * 2",
		"  strcat(['geo.city'], '-')  ": `strcat(['geo.city'], "-")`,
		"x <> 1":                        "x != 1",
		"tolower(a) has_any ('x')":      `tolower(a) has_any ("x")`,
	}
	for src, want := range good {
		e, err := ParseExpr(src)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if got := FormatExpr(e); got != want {
			t.Errorf("%q formats as %q, want %q", src, got, want)
		}
	}
	bad := map[string]string{
		"":          "1:1: expected an expression, found end of input",
		"a +":       `1:4: expected an operand after "+", found end of input`,
		"a = 1":     `1:3: unexpected "=" after an expression: use "==" to compare`,
		"a b":       `1:3: expected an operator or end of expression, found "b"`,
		"f(a,":      `1:2: unclosed "(": expected ")" before end of input`,
		"a in (1,)": `1:9: expected an expression, found ")"`,
	}
	for src, want := range bad {
		_, err := ParseExpr(src)
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", src, err, want)
		}
	}
}

func TestWalkFindsEveryTableReference(t *testing.T) {
	src := `let T = union a, b*; let x = 1;
T | join kind=inner (c | where id in (d | project id)) on id
| lookup ['e.f'] on k | union (g), h`
	q, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	Walk(q, func(n Node) bool {
		if r, ok := n.(*TableRef); ok {
			names = append(names, r.Name)
		}
		return true
	})
	want := "a b* T c d e.f g h"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("table refs %q, want %q", got, want)
	}
	count := 0
	Walk(q, func(n Node) bool {
		count++
		_, isJoin := n.(*JoinOp)
		return !isJoin // skipping a subtree hides its tables
	})
	if count == 0 {
		t.Fatal("walk visited nothing")
	}
}

func TestLetBindingKinds(t *testing.T) {
	q, err := Parse("let a = 1; let b = a; let T = logs; let U = ['x']; let V = (T | take 1); V")
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, false, true, true, true} // tabular?
	for i, s := range q.Stmts {
		l := s.(*LetStmt)
		if (l.Tabular != nil) != want[i] || (l.Expr != nil) == want[i] {
			t.Errorf("let %s: tabular=%v, want %v", l.Name, l.Tabular != nil, want[i])
		}
	}
}

func TestErrorsAreRecoveredPerStatement(t *testing.T) {
	_, err := Parse("let a = (1; let b = 2 +; logs | where")
	if err == nil {
		t.Fatal("no error")
	}
	_, err = Parse("let a = 1 +; let b = 2 +; logs | where")
	list, ok := err.(ErrorList)
	if !ok || len(list) != 3 {
		t.Fatalf("want 3 errors, got %v", err)
	}
	for i, want := range []int{12, 25, 39} {
		if list[i].Pos.Col != want {
			t.Errorf("error %d at col %d, want %d: %v", i, list[i].Pos.Col, want, list[i])
		}
	}
}

func TestFormatOfConstructedAST(t *testing.T) {
	// Names that are not identifiers, and a unary minus over a literal,
	// must print so that they parse back to the same tree.
	e := &BinaryExpr{Op: "+", L: &Ident{Name: "a b"}, R: &UnaryExpr{Op: "-", X: &Literal{Kind: LitInt, Type: vector.Int, Value: int64(1)}}}
	text := FormatExpr(e)
	if text != "['a b'] + -(1)" {
		t.Errorf("got %q", text)
	}
	back, err := ParseExpr(text)
	if err != nil {
		t.Fatal(err)
	}
	if Dump(back) != strings.Replace(Dump(e), `"a b")`, `"a b" quoted)`, 1) {
		t.Errorf("round trip differs:\n%s\n%s", Dump(back), Dump(e))
	}
}

func TestRuneColumnsInErrors(t *testing.T) {
	_, err := Parse("print 'ééé' | foo")
	if err == nil || !strings.HasPrefix(err.Error(), "1:15: ") {
		t.Errorf("got %v, want error at 1:15", err)
	}
	if !utf8.ValidString(err.Error()) {
		t.Error("error text is not UTF-8")
	}
}

// KQL source operators that APL lacks get a message that names them and
// what to write instead, at the operator's position, rather than a
// complaint about the token after it.
func TestUnsupportedSourceOperators(t *testing.T) {
	for src, want := range map[string]string{
		"range x from 1 to 1000000000000 step 1": "1:1: the range operator is not supported: print x = range(start, stop, step) | mv-expand x",
		"\n  find 'x'":                           "2:3: the find operator is not supported",
		"range | count":                          "", // a dataset named range
	} {
		_, err := Parse(src)
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", src, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want it to start with %q", src, err, want)
		}
	}
}

// A fault in a list of expressions (datatable's values, join's and
// lookup's keys, redact's patterns and fields) is named where it is:
// the lists used to sit in optional or repeated groups whose error the
// grammar dropped, blaming the first value or the comma.
func TestListErrorsNameTheirPlace(t *testing.T) {
	bad := map[string]string{
		"print 1 +":                                     `1:10: expected an operand after "+", found end of input`,
		"datatable(a:long)[1 +]":                        `1:22: expected an operand after "+", found "]"`,
		"datatable(a:long)[1 +, 2]":                     `1:22: expected an operand after "+", found ","`,
		"datatable(a:long)[1 2]":                        `1:21: expected "," or "]", found "2"`,
		"datatable(a:long)[,]":                          `1:19: expected a value or "]", found ","`,
		"datatable(a:long)[1":                           `1:18: unclosed "[": expected "]" before end of input`,
		"T | lookup U on x, y +":                        `1:23: expected an operand after "+", found end of input`,
		"T | join (U) on x, y +":                        `1:23: expected an operand after "+", found end of input`,
		"T | join (U) on":                               `1:16: expected an expression, found end of input`,
		"T | redact 'a' on x, y +":                      `1:25: expected an operand after "+", found end of input`,
		"T | redact 'a' on":                             `1:18: expected an expression, found end of input`,
		"T | redact 'a', 'b' +":                         `1:22: expected an operand after "+", found end of input`,
		"T | mv-expand a, b +":                          `1:21: expected an operand after "+", found end of input`,
		"T | mv-expand a limit 1 +":                     `1:26: expected an operand after "+", found end of input`,
		"T | union U, (V | where x +)":                  `1:28: expected an operand after "+", found ")"`,
		"T | make-series c=count() on t step 1h by x +": `1:46: expected an operand after "+", found end of input`,
		"T | mv-expand a | where x > 1 y":               `1:31: expected "|" or end of statement, found "y"`,
	}
	for src, want := range bad {
		_, err := Parse(src)
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", src, err, want)
		}
	}
	for _, src := range []string{"datatable(a:long)[]", "datatable(a:long)[1, 2,]", "datatable(a:long, b:string)[1, 'x']",
		"T | redact 'a'", "T | redact 'a', 'b' on x, y", "T | join (U) on x, $left.y == $right.z",
		"T | mv-expand a, b | count", "T | make-series c=count() on t step 1h by x, y | count", "T | union U, (V | where x > 1)"} {
		if _, err := Parse(src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}
