package core

import (
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// A misspelt field, function, aggregation or dataset is told the name
// nearest it; a name far from every known one is told nothing, and a
// dataset the request may not read is never offered.
func TestDidYouMean(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, false)))
	for _, c := range []struct{ q, want string }{
		{"logs | where stauts == 200", `unknown field or variable "stauts" (did you mean 'status'?)`},
		{"logs | where geo.contry == 'France'", `(did you mean 'geo.country'?)`},
		{"logs | extend n = strlenn(uri)", `unknown function "strlenn" (did you mean 'strlen'?)`},
		{"logs | extend n = toupper(uri) | extend m = tolowr(n)", `unknown function "tolowr" (did you mean 'tolower'?)`},
		{"logs | summarize cuont()", `unknown aggregation function "cuont" (did you mean 'count'?)`},
		{"lgos | count", `unknown dataset or table "lgos" (did you mean 'logs'?)`},
		{"let errs = logs | where status >= 500; errz | count", `(did you mean 'errs'?)`},
		{"logs | where zzzzzz == 1", `unknown field or variable "zzzzzz"`},
		{"logs | extend n = frobnicate(uri)", `unknown function "frobnicate"`},
	} {
		_, err := query(t, e, c.q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.q, err, c.want)
		}
		if err != nil && !strings.Contains(c.want, "did you mean") && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%s: a far name got a suggestion: %v", c.q, err)
		}
	}
	_, err := query(t, e, "lgos | count", func(r *exec.Request) { r.Allowed = func(string) bool { return false } })
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("a dataset the request may not read was offered: %v", err)
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"stauts", "status", 1}, {"cuont", "count", 1}, {"ab", "ba", 1}, {"kitten", "sitting", 3}, {"é", "e", 1}, {"a", "abcdef", 4}} {
		if got := editDistance(c.a, c.b, 3); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
