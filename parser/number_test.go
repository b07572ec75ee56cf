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
