package core

import (
	"errors"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

// The deepest trees the parser lets through are planned, compiled,
// evaluated and sent to another node as a fragment (JSON, whose decoder
// stops at 10,000 levels) with the same answer as on one node: the
// planner, compiler, evaluator and plan encoding recurse once per level.
func TestDeepestQueriesRunEverywhere(t *testing.T) {
	c := newTestCluster(t)
	n := parser.MaxDepth - 10
	// status is never 1000+i: the or is false until its last term.
	or := "['logs'] | where " + strings.Repeat("status == 1000 or ", n) + "method == 'GET' | count"
	plus := "['logs'] | extend d = req_duration_ms" + strings.Repeat(" + 1", n) + " | summarize sum(d) by method"
	and := "['logs'] | where " + strings.Repeat("status != 1000 and ", n) + "true | summarize count() by status"
	for _, q := range []string{or, plus, and} {
		if _, err := parser.Parse(q); err != nil {
			t.Fatalf("the test needs a query the parser accepts: %v", err)
		}
		_, ran, fails := distributedMatches(t, c, q)
		if ran == 0 || len(fails) > 0 {
			t.Errorf("%.60s…: node b ran %d fragments, failures %v", q, ran, fails)
		}
	}
	want := mustQuery(t, c.a, "['logs'] | where method == 'GET' | count")
	if got := mustQuery(t, c.a, or); stableJSON(got) != stableJSON(want) {
		t.Errorf("a %d-term or: %s, want %s", n+1, stableJSON(got), stableJSON(want))
	}
}

// A query past a limit is a syntax error with its position, which the API
// answers with 400; the engine answers the next query as before.
func TestEngineRefusesPastTheLimits(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, false)))
	for _, tc := range []struct{ q, pos, msg string }{
		{"print x = 1" + strings.Repeat("+1", 3_000_000), "1:1048577", "over the limit of 1048576 bytes"},
		{"print x = 1" + strings.Repeat("+1", 2_000), "1:11", "nests deeper than 1000 levels"},
		{"let t = t | take 1;\nt", "1:9", "let t uses itself here"},
	} {
		_, err := query(t, e, tc.q)
		var qe *exec.QueryError
		if !errors.As(err, &qe) || qe.Kind != "syntax" || !strings.HasPrefix(err.Error(), tc.pos+": ") || !strings.Contains(qe.Msg, tc.msg) {
			t.Errorf("%.40s…: %v, want a syntax error at %s: …%s…", tc.q, err, tc.pos, tc.msg)
		}
	}
	if got := rows(mustQuery(t, e, "print x = 1 + 1")); len(got) != 1 || got[0][0] != int64(2) {
		t.Errorf("the next query: %v", got)
	}
}
