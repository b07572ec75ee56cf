package parser

import "testing"

// A real may end in a bare dot ("10."), but ".." stays a range and a
// dotted name stays a member access.
func TestTrailingDotReal(t *testing.T) {
	for src, want := range map[string]string{
		"print x = 10./5":              "LitReal",
		"print x = 10.":                "LitReal",
		"T | where x between (1 .. 2)": "",
		"T | where x between (1..2)":   "",
	} {
		q, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		found := false
		Walk(q, func(n Node) bool {
			if l, ok := n.(*Literal); ok && l.Kind == LitReal {
				found = true
			}
			return true
		})
		if found != (want == "LitReal") {
			t.Errorf("%s: real literal found=%v", src, found)
		}
	}
}

// A member name may be quoted, as in Axiom's lookup example
// `$left.['service.name']`, and prints back the same way.
func TestQuotedMemberName(t *testing.T) {
	q, err := Parse("T | join kind=inner U on $left.['service.name'] == $right.svc")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	Walk(q, func(n Node) bool {
		if m, ok := n.(*MemberExpr); ok {
			names = append(names, m.Name)
		}
		return true
	})
	if len(names) != 2 || names[0] != "service.name" {
		t.Fatalf("members %v", names)
	}
	out := Format(q)
	q2, err := Parse(out)
	if err != nil || Format(q2) != out {
		t.Fatalf("print/parse not a fixed point: %q (%v)", out, err)
	}
}
