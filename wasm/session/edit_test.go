package session

import (
	"strings"
	"testing"
)

// The filter a click on a top value adds goes after the source and its
// leading where stages, never after a take or a summarize.
func TestFilterAt(t *testing.T) {
	for _, c := range []struct{ apl, before string }{
		{"['logs'] | take 100", "['logs']"},
		{"['logs']\n| summarize count() by status", "['logs']"},
		{"['logs'] | where a == 1 | where b > 2 | take 5", "['logs'] | where a == 1 | where b > 2"},
		{"let x = 1;\n['logs'] | where a == x | count", "let x = 1;\n['logs'] | where a == x"},
		{"['lögs'] | take 1", "['lögs']"},
		{"logs", "logs"},
	} {
		p, err := FilterAt(c.apl)
		if err != nil {
			t.Errorf("%q: %v", c.apl, err)
			continue
		}
		if got := string([]rune(c.apl)[:p.At]); got != c.before {
			t.Errorf("%q: filter at %d, after %q, want after %q", c.apl, p.At, got, c.before)
		}
	}
	if _, err := FilterAt("['logs'] | take"); err == nil {
		t.Error("a query that does not parse has no filter point")
	}
}

// Syntax reports the position of a syntax error without running anything.
func TestSyntax(t *testing.T) {
	if errs := Syntax("['logs'] | where status == 500"); errs != nil {
		t.Fatalf("a valid query: %v", errs)
	}
	errs := Syntax("['logs']\n| wher x")
	if len(errs) == 0 || errs[0].Line != 2 || errs[0].Col == 0 || !strings.Contains(errs[0].Message, "wher") {
		t.Fatalf("errors %+v, want one at line 2 naming wher", errs)
	}
}
