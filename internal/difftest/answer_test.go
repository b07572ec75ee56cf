package difftest

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func table(fields string, rows ...[]any) *Answer {
	t := Table{Name: "0"}
	for _, f := range strings.Split(fields, ",") {
		name, typ, _ := strings.Cut(f, ":")
		t.Fields = append(t.Fields, Field{name, typ})
	}
	t.Rows = rows
	return &Answer{Tables: []Table{t}}
}

func row(vs ...any) []any {
	for i, v := range vs {
		switch x := v.(type) {
		case int:
			vs[i] = json.Number(strconv.Itoa(x))
		case float64:
			js, _ := json.Marshal(x)
			vs[i] = json.Number(js)
		}
	}
	return vs
}

// The comparison is what decides a disagreement: it must see a changed
// cell, row or order, and must not see rows in another order, sums
// added in another order, or ties cut differently.
func TestDiff(t *testing.T) {
	for _, c := range []struct {
		name      string
		want, got *Answer
		order     Order
		differs   string // a word of the description, "" for agreement
	}{
		{"bag in another order", table("k:string,n:long", row("a", 1), row("b", 2)), table("k:string,n:long", row("b", 2), row("a", 1)), Order{}, ""},
		{"a changed cell", table("k:string,n:long", row("a", 1), row("b", 2)), table("k:string,n:long", row("a", 1), row("b", 3)), Order{}, "row"},
		{"a missing row", table("k:string,n:long", row("a", 1), row("b", 2)), table("k:string,n:long", row("a", 1)), Order{}, "rows"},
		{"a duplicated row", table("n:long", row(1), row(2)), table("n:long", row(1), row(1)), Order{}, "row"},
		{"reals within tolerance", table("s:float", row(0.1+0.2)), table("s:float", row(0.3)), Order{}, ""},
		{"reals beyond tolerance", table("s:float", row(0.3001)), table("s:float", row(0.3)), Order{}, "row"},
		{"longs exactly", table("s:long", row(1000000001)), table("s:long", row(1000000000)), Order{}, "row"},
		{"another order", table("n:long", row(1), row(2)), table("n:long", row(2), row(1)), Order{Keys: []string{"n"}}, "ordered"},
		{"ties in any order", table("n:long,x:string", row(1, "a"), row(1, "b"), row(2, "c")), table("n:long,x:string", row(1, "b"), row(1, "a"), row(2, "c")), Order{Keys: []string{"n"}}, ""},
		{"tied rows that differ", table("n:long,x:string", row(1, "a"), row(1, "b"), row(2, "c")), table("n:long,x:string", row(1, "b"), row(1, "z"), row(2, "c")), Order{Keys: []string{"n"}}, "rows 0..1"},
		{"200 and \"200\" tie in a sort", table("n:dynamic,x:string", row(200, "a"), row("200", "b")), table("n:dynamic,x:string", row("200", "b"), row(200, "a")), Order{Keys: []string{"n"}}, ""},
		{"a cut among ties", table("n:long,x:string", row(1, "a"), row(2, "b")), table("n:long,x:string", row(1, "a"), row(2, "c")), Order{Keys: []string{"n"}, Limited: true}, ""},
		{"opaque compares columns", table("n:long", row(1)), table("n:long", row(2)), Order{Opaque: true}, ""},
		{"opaque still compares columns", table("n:long", row(1)), table("m:long", row(1)), Order{Opaque: true}, "fields"},
		{"errors", &Answer{Err: "a"}, &Answer{Err: "b"}, Order{}, "error"},
		{"number or string", table("s:dynamic", row(200)), table("s:dynamic", row("200")), Order{}, DynamicKey},
	} {
		d := Diff(c.want, c.got, c.order)
		if c.differs == "" && d != "" || c.differs != "" && !strings.Contains(d, c.differs) {
			t.Errorf("%s: Diff = %q, want it to mention %q", c.name, d, c.differs)
		}
	}
}

// A query's order follows its stages: a project that drops the sort key
// after a cut leaves any of the tied rows, so the answer is opaque.
func TestQueryOrder(t *testing.T) {
	sort := Stage{Text: "sort by a", Order: 's', Keys: []string{"a"}}
	take := Stage{Text: "take 3", Order: 'k', Limit: true}
	for _, c := range []struct {
		stages []Stage
		want   string
	}{
		{[]Stage{sort}, "{[a] false false}"},
		{[]Stage{sort, take}, "{[a] true false}"},
		{[]Stage{sort, take, {Order: 'k', Keep: map[string]string{"a": "b"}}}, "{[b] true false}"},
		{[]Stage{sort, take, {Order: 'k', Keep: map[string]string{"c": "c"}}}, "{[] false true}"},
		{[]Stage{sort, {Order: 'k', Keep: map[string]string{"c": "c"}}}, "{[] false false}"},
		{[]Stage{sort, take, {Text: "count", Order: 'r'}}, "{[] false true}"},
		{[]Stage{sort, {Text: "count", Order: 'r'}}, "{[] false false}"},
		{[]Stage{sort, take, sort}, "{[] false true}"},
		{[]Stage{sort, sort, take}, "{[a] true false}"},
		{[]Stage{take}, "{[] false true}"},
	} {
		o := Query{Src: "t", Stages: c.stages}.Order()
		if got := fmtOrder(o); got != c.want {
			t.Errorf("%s: order %s, want %s", Query{Src: "t", Stages: c.stages}, got, c.want)
		}
	}
}

func fmtOrder(o Order) string {
	js, _ := json.Marshal(o.Keys)
	k := strings.NewReplacer(`"`, "", ",", " ", "null", "[]").Replace(string(js))
	return "{" + k + " " + map[bool]string{true: "true", false: "false"}[o.Limited] + " " + map[bool]string{true: "true", false: "false"}[o.Opaque] + "}"
}

// The minimizer drops one item of a list at a time, never splitting a
// call's arguments or a string.
func TestShorterLists(t *testing.T) {
	got := shorterLists(`summarize a = count(), b = countif(x in (1, 2)), c = max(s) by k, bin(_time, 1h)`)
	want := []string{
		`summarize b = countif(x in (1, 2)), c = max(s) by k, bin(_time, 1h)`,
		`summarize a = count(), c = max(s) by k, bin(_time, 1h)`,
		`summarize a = count(), b = countif(x in (1, 2)) by k, bin(_time, 1h)`,
		`summarize a = count(), b = countif(x in (1, 2)), c = max(s) by bin(_time, 1h)`,
		`summarize a = count(), b = countif(x in (1, 2)), c = max(s) by k`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := shorterLists(`summarize n = count() by s`); len(got) != 1 || got[0] != "summarize n = count()" {
		t.Errorf("one key: %q", got)
	}
	if got := shorterLists(`project a, p = strcat(b, ", ", "x, y")`); len(got) != 2 || got[0] != `project p = strcat(b, ", ", "x, y")` {
		t.Errorf("project: %q", got)
	}
}

// The minimizer keeps only what the failure needs: here, a failure that
// needs dcount and a where on status.
func TestShrink(t *testing.T) {
	q := Query{Src: "['logs']", Stages: []Stage{
		{Text: "extend x = 1", Order: 'k'},
		{Text: "where %P", Order: 'k', Pred: &Expr{Op: "and", Kids: []*Expr{{Leaf: "status > 200"}, {Op: "not", Kids: []*Expr{{Leaf: "isnull(uri)"}}}}}},
		{Text: "summarize a = count(), b = dcount(uri) by method, status", Order: 'r'},
		{Text: "sort by b desc", Order: 's', Keys: []string{"b"}},
	}}
	fails := func(c Query) string {
		s := c.String()
		if strings.Contains(s, "dcount(uri)") && strings.Contains(s, "where status > 200") {
			return "differs"
		}
		return ""
	}
	got, d := shrink(q, fails(q), fails)
	if want := "['logs'] | where status > 200 | summarize b = dcount(uri)"; got.String() != want || d != "differs" {
		t.Errorf("minimized to %q (%q), want %q", got, d, want)
	}
}
