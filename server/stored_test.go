package server

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aplite/aplite/server/meta"
)

// apiErr is an error answer with the position a stored query's check
// reports.
type apiErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Detail  struct {
		Field  string `json:"field"`
		Line   int    `json:"line"`
		Column int    `json:"column"`
	} `json:"detail"`
}

// refused performs r and checks its status, message and position.
func (ts *testServer) refused(r req, status int, msg, field string, line, col int) {
	ts.t.Helper()
	var e apiErr
	ts.must(r, status).json(ts.t, &e)
	if !strings.Contains(e.Message, msg) || e.Detail.Field != field || e.Detail.Line != line || e.Detail.Column != col {
		ts.t.Fatalf("%s %s: %+v, want %q in the message at %s %d:%d", r.method, r.path, e, msg, field, line, col)
	}
}

// Every kind of stored query is parsed, planned and checked when it is
// saved, and refused with the field and the position of the fault.
func TestStoredQueriesCheckedWhenSaved(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	ts.ingestNDJSON("logs", `{"status":500,"host":"a"}`+"\n")
	mon := func(apl string) req {
		return req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "m", "aplQuery": apl, "operator": "Above"}}
	}
	ts.refused(mon("['logs'] | where status >"), 400, "aplQuery: 1:", "aplQuery", 1, 26)
	ts.refused(mon("['logs'] | extend x = nosuchfn(status)"), 400, "nosuchfn", "aplQuery", 1, 23)
	ts.refused(mon("['nope'] | count"), 400, `unknown dataset or table "nope"`, "aplQuery", 1, 1)
	// A field no event has yet is allowed: monitors are set up before data.
	ts.must(mon("['logs'] | where latency > 100 | count"), 200)
	var m struct{ ID string }
	ts.must(mon("['logs'] | count"), 200).json(t, &m)
	ts.refused(req{method: "PUT", path: "/v2/monitors/" + m.ID, body: map[string]any{"name": "m", "aplQuery": "['logs'] |"}},
		400, "aplQuery: 1:", "aplQuery", 1, 11)

	vf := func(expr string) req {
		return req{method: "POST", path: "/v2/vfields", body: map[string]any{"dataset": "logs", "name": "v", "expression": expr}}
	}
	ts.refused(vf("status +"), 400, "expression: 1:", "expression", 1, 9)
	ts.refused(vf("status | take 0"), 400, "expression: 1:", "expression", 1, 8) // a pipeline is not an expression
	ts.refused(vf("strlen(status, 1, 2, 3)"), 400, "expression: 1:", "expression", 1, 1)
	ts.must(vf("status >= 500"), 200)

	ts.refused(req{method: "POST", path: "/v2/apl-starred-queries", body: map[string]any{"name": "s",
		"query": map[string]any{"apl": "['logs']\n| summarize count( by host"}}}, 400, "query.apl: 2:18: unclosed", "query.apl", 2, 18)
	ts.refused(req{method: "POST", path: "/v2/dashboards", body: map[string]any{"dashboard": map[string]any{"name": "d",
		"charts": []any{map[string]any{"id": "a", "query": map[string]any{"apl": "['logs'] | count"}},
			map[string]any{"id": "b", "query": map[string]any{"apl": "['logs'] | take"}}}}}},
		400, "dashboard.charts[1].query.apl: 1:", "dashboard.charts[1].query.apl", 1, 16)
	ts.must(req{method: "POST", path: "/v2/dashboards", body: map[string]any{"dashboard": map[string]any{"name": "d",
		"charts": []any{map[string]any{"id": "a", "query": map[string]any{"apl": "['logs'] | count"}},
			map[string]any{"id": "f", "query": map[string]any{"apl": "declare query_parameters (host_filter:string = \"\");\n['logs'] | where host == host_filter"}}}}}}, 200)
}

// A token that may read only alpha cannot save a query over beta, on any
// side of a join, union or lookup, even behind a field planning stops at.
func TestStoredQueryNeedsTheSaversRights(t *testing.T) {
	ts := newTestServer(t)
	for _, ds := range []string{"alpha", "beta"} {
		ts.createDataset(ds)
		ts.ingestNDJSON(ds, `{"host":"h","n":1}`+"\n")
	}
	alphaOnly := ts.newToken(map[string]any{"alpha": map[string]any{"query": []string{"read"}, "starredQueries": []string{"create"}}},
		map[string]any{"monitors": []string{"create", "read", "update"}, "dashboards": []string{"create"}}).Token
	mon := func(apl string) req {
		return req{method: "POST", path: "/v2/monitors", token: alphaOnly, body: map[string]any{"name": "m", "aplQuery": apl}}
	}
	ts.refused(mon("['beta'] | summarize sum(n)"), 403, `aplQuery: 1:1: token is not allowed to query dataset "beta"`, "aplQuery", 1, 1)
	ts.refused(mon("['alpha'] | join kind=inner (['beta']) on host"), 403, `"beta"`, "aplQuery", 1, 30)
	ts.refused(mon("['alpha'] | where later > 1 | union ['beta']"), 403, `"beta"`, "aplQuery", 1, 37)
	ts.refused(mon("['alpha'] | lookup (['beta'] | project host, n) on host"), 403, `"beta"`, "aplQuery", 1, 21)
	ts.refused(mon("let b = ['beta'];\n['alpha'] | where later > 1 | union b"), 403, `"beta"`, "aplQuery", 1, 9)
	ts.refused(mon("search in (alpha, beta) \"x\""), 403, `"beta"`, "aplQuery", 1, 19)
	ts.must(mon("['alpha'] | summarize sum(n)"), 200)
	ts.refused(req{method: "POST", path: "/v2/apl-starred-queries", token: alphaOnly, body: map[string]any{"name": "s", "dataset": "alpha",
		"query": map[string]any{"apl": "['alpha'] | union ['beta']"}}}, 403, `"beta"`, "query.apl", 1, 19)
	ts.refused(req{method: "POST", path: "/v2/dashboards", token: alphaOnly, body: map[string]any{"dashboard": map[string]any{"name": "d",
		"charts": []any{map[string]any{"id": "a", "query": map[string]any{"apl": "['beta'] | count"}}}}}},
		403, `"beta"`, "dashboard.charts[0].query.apl", 1, 1)
}

// A virtual field stored before expressions were checked (written to the
// metadata store as one from an older version would be) is skipped by
// the queries of its dataset with a warning; it never makes them fail.
func TestBadStoredVirtualFieldIsSkipped(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	ts.ingestNDJSON("logs", `{"status":500}`+"\n"+`{"status":200}`+"\n")
	ts.must(req{method: "POST", path: "/v2/vfields", body: map[string]any{"dataset": "logs", "name": "bad5xx", "expression": "status >= 500"}}, 200)
	for id, expr := range map[string]string{"old1": "status +", "old2": "nosuchfn(status)"} {
		if err := ts.s.meta.Put(meta.KindVField, ts.org, id, meta.VirtualField{ID: id, Dataset: "logs", Name: id, Expression: expr}); err != nil {
			t.Fatal(err)
		}
	}
	var out struct {
		Status struct {
			Messages []struct{ Code, Msg string } `json:"messages"`
		} `json:"status"`
		Tables []struct {
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular",
		body: map[string]any{"apl": "['logs'] | where bad5xx | count"}}, 200).json(t, &out)
	if len(out.Tables) != 1 || len(out.Tables[0].Columns) != 1 || out.Tables[0].Columns[0][0] != float64(1) {
		t.Fatalf("count with the good virtual field: %+v", out.Tables)
	}
	var skipped []string
	for _, m := range out.Status.Messages {
		if m.Code == "apl_virtualfieldskipped" {
			skipped = append(skipped, m.Msg)
		}
	}
	if len(skipped) != 2 || !strings.Contains(strings.Join(skipped, " "), `"old1"`) || !strings.Contains(strings.Join(skipped, " "), `"old2"`) {
		t.Fatalf("skipped fields not reported: %+v", out.Status.Messages)
	}
	// The query's own mistakes are still its own 400.
	ts.mustErr(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['logs'] | where"}}, 400, "1:")
}

// The JSON of a monitor is what the clients read: the recorded creator
// lives beside it, not in it, and goes with it.
func TestMonitorOwnerIsNotInTheMonitor(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	r := ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "m", "aplQuery": "['logs'] | count"}}, 200)
	var m map[string]json.RawMessage
	r.json(t, &m)
	var o meta.MonitorOwner
	var id string
	json.Unmarshal(m["id"], &id)
	if _, ok := m["owner"]; ok || ts.s.meta.Get(meta.KindMonitorOwner, ts.org, id, &o) != nil || o.Kind != meta.TokenPersonal || o.UserID == "" {
		t.Fatalf("monitor %s, owner %+v", r.body, o)
	}
	// Deleting the monitor deletes its creator record.
	ts.must(req{method: "DELETE", path: "/v2/monitors/" + id}, 204)
	if err := ts.s.meta.Get(meta.KindMonitorOwner, ts.org, id, &o); err != meta.ErrNotFound {
		t.Fatalf("owner of a deleted monitor: %v", err)
	}
}
