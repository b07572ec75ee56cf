package server

import (
	"strings"
	"testing"
)

// A regular expression that does not compile is the caller's mistake: 400
// with the line and column of the pattern, not a 500.
func TestInvalidRegexIs400(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("l")
	ts.must(req{method: "POST", path: "/v1/datasets/l/ingest", body: `[{"s":"abc"}]`, contentType: "application/json"}, 200)
	for q, col := range map[string]float64{
		"['l'] | extend e = extract('(', 1, s)":         28,
		"['l'] | extend e = replace_regex('[', 'x', s)": 34,
		"['l'] | where s matches regex 'a(' | count":    0,
	} {
		r := ts.do(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": q}})
		if r.status != 400 || !strings.Contains(string(r.body), "invalid regular expression") {
			t.Errorf("%s: %d %s", q, r.status, r.body)
			continue
		}
		var e struct {
			Detail struct {
				Line, Column float64
			} `json:"detail"`
		}
		r.json(t, &e)
		if col > 0 && (e.Detail.Line != 1 || e.Detail.Column != col) {
			t.Errorf("%s: at %v:%v, want 1:%v", q, e.Detail.Line, e.Detail.Column, col)
		}
	}
}
