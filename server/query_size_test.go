package server

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Queries built to exhaust the server (a 6 MB chain of `+` overflowed the
// stack and killed the process; a 10 MB `or` chain took 2 GB and a
// minute) are a 400 that names the limit and its position, cost little
// more than their body, and the next query is answered as before.
func TestOversizedQueriesAre400(t *testing.T) {
	ts := newTestServer(t)
	or := make([]string, 700_000)
	for i := range or {
		or[i] = "a == " + strconv.Itoa(i)
	}
	cases := []struct {
		apl, msg    string
		line, col   int
		maxAllocMB  uint64
		description string
	}{
		{"print x = 1" + strings.Repeat("+1", 3_000_000), "1:1048577: the query is 6000011 bytes long, over the limit of 1048576 bytes (1 MiB)", 1, 1048577, 100, "6 MB of +1"},
		{"print a = 1\n| where " + strings.Join(or, " or "), "2:1048565: the query is 10388906 bytes long, over the limit of 1048576 bytes", 2, 1048565, 150, "10 MB or"},
		{"print a = 1\n| where " + strings.Join(or[:5000], " or "), "2:9: the expression starting here nests deeper than 1000 levels", 2, 9, 100, "5,000-term or"},
	}
	for _, tc := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := ts.do(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": tc.apl}})
		runtime.ReadMemStats(&after)
		var e struct {
			Message string
			Detail  struct{ Line, Column int }
		}
		r.json(t, &e)
		if r.status != 400 || !strings.Contains(e.Message, tc.msg) || e.Detail.Line != tc.line || e.Detail.Column != tc.col {
			t.Errorf("%s: %d %+v, want 400 at %d:%d: …%s…", tc.description, r.status, e, tc.line, tc.col, tc.msg)
		}
		// The request and answer bodies are a few copies of the query.
		if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > tc.maxAllocMB {
			t.Errorf("%s: the server allocated %d MB to refuse it", tc.description, mb)
		}
	}
	r := ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "print x = 1 + 1"}}, 200)
	if !strings.Contains(string(r.body), "[[2]]") {
		t.Errorf("the next query: %s", r.body)
	}
}
