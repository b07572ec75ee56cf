package server

import (
	"strings"
	"testing"
)

// A misspelt field or function gets a 400, a misspelt dataset a 404,
// whose message names the known name nearest it, as the CLI prints it (the
// planner builds the text once for both).
func TestQueryErrorSuggests(t *testing.T) {
	ts := newTestServer(t)
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "weblogs"}}, 200)
	ts.must(req{method: "POST", path: "/v1/datasets/weblogs/ingest", body: "{\"status\":200,\"uri\":\"/a\"}\n", contentType: "application/x-ndjson"}, 200)
	for _, c := range []struct {
		q      string
		status int
		want   string
	}{
		{"['weblogs'] | where stauts == 200", 400, `unknown field or variable \"stauts\" (did you mean 'status'?)`},
		{"['weblogs'] | extend n = strlenn(uri)", 400, `unknown function \"strlenn\" (did you mean 'strlen'?)`},
		{"['weblgos'] | count", 404, `unknown dataset or table \"weblgos\" (did you mean 'weblogs'?)`},
	} {
		r := ts.do(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": c.q}})
		if r.status != c.status || !strings.Contains(string(r.body), c.want) {
			t.Errorf("%s: %d %s, want %d with %s", c.q, r.status, r.body, c.status, c.want)
		}
	}
}
