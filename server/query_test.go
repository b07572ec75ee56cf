package server

import (
	"strings"
	"testing"
	"time"
)

type tabular struct {
	Format string `json:"format"`
	Status struct {
		RowsMatched int64 `json:"rowsMatched"`
	} `json:"status"`
	Tables []struct {
		Name   string `json:"name"`
		Fields []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"fields"`
		Columns [][]any `json:"columns"`
	} `json:"tables"`
	DatasetNames []string `json:"datasetNames"`
}

func (ts *testServer) ingestNDJSON(ds, body string) {
	ts.t.Helper()
	ts.must(req{method: "POST", path: "/v1/datasets/" + ds + "/ingest", contentType: "application/x-ndjson", body: body}, 200)
}

func TestAPLTabularAndLegacy(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	now := time.Now().UTC()
	old := now.Add(-48 * time.Hour).Format(time.RFC3339)
	ts.ingestNDJSON("ds", `{"_time":"`+old+`","status":500}`+"\n"+`{"status":200}`+"\n"+`{"status":404}`+"\n")

	for _, path := range []string{"/v1/datasets/_apl?format=tabular", "/v1/query/_apl?format=tabular&nocache=true"} {
		var res tabular
		ts.must(req{method: "POST", path: path, body: map[string]any{"apl": "['ds'] | where status >= 400 | count"}}, 200).json(t, &res)
		if res.Format != "tabular" || res.Tables[0].Columns[0][0] != float64(2) || res.DatasetNames[0] != "ds" {
			t.Fatalf("%s: %+v", path, res)
		}
	}
	// Relative and absolute time ranges restrict _time to [start, end).
	for _, rng := range []map[string]any{
		{"startTime": "now-1d", "endTime": "now"},
		{"startTime": now.Add(-time.Hour).Format(time.RFC3339Nano), "endTime": now.Add(time.Hour).Format("2006-01-02T15:04:05")},
		{"startTime": "now-1h"},
	} {
		body := map[string]any{"apl": "['ds'] | count"}
		for k, v := range rng {
			body[k] = v
		}
		var res tabular
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: body}, 200).json(t, &res)
		if res.Tables[0].Columns[0][0] != float64(2) {
			t.Fatalf("range %v counted %v", rng, res.Tables[0].Columns[0][0])
		}
	}
	// Variables are usable in the query.
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
		"apl": "['ds'] | where status == v | count", "variables": map[string]any{"v": 404}}}, 200).json(t, &res)
	if res.Tables[0].Columns[0][0] != float64(1) {
		t.Fatalf("variables: %+v", res)
	}
	// A plain query has _time and _sysTime but no _rowId column.
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['ds']"}}, 200).json(t, &res)
	names := []string{}
	for _, f := range res.Tables[0].Fields {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "_time") || !strings.Contains(got, "_sysTime") || strings.Contains(got, "_rowId") {
		t.Fatalf("plain query fields %s", got)
	}
	// Legacy is the default format.
	var legacy struct {
		Format  string           `json:"format"`
		Matches []map[string]any `json:"matches"`
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl", body: map[string]any{"apl": "['ds'] | where status == 200"}}, 200).json(t, &legacy)
	if legacy.Format != "legacy" || len(legacy.Matches) != 1 {
		t.Fatalf("legacy %+v", legacy)
	}
}

func TestAPLErrors(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	apl := func(body any, path ...string) req {
		p := "/v1/datasets/_apl?format=tabular"
		if len(path) > 0 {
			p = path[0]
		}
		return req{method: "POST", path: p, body: body}
	}
	ts.mustErr(apl(map[string]any{}), 400, "apl is required")
	ts.mustErr(apl("{"), 400, "invalid JSON")
	ts.mustErr(apl(map[string]any{"apl": "['ds'] | count"}, "/v1/datasets/_apl?format=csv"), 400, "format")
	ts.mustErr(apl(map[string]any{"apl": "['ds'] | count", "startTime": "yesterday"}), 400, "startTime")
	ts.mustErr(apl(map[string]any{"apl": "['ds'] | count", "startTime": "now", "endTime": "now-1h"}), 400, "endTime")
	// An unknown dataset: the engine's error wraps store.ErrNotFound (404)
	// and still names the dataset.
	ts.mustErr(apl(map[string]any{"apl": "['nope'] | count"}), 404, "nope")
	// Syntax errors carry their position.
	r := ts.must(apl(map[string]any{"apl": "['ds'] | where ("}), 400)
	var e struct {
		Code   int `json:"code"`
		Detail struct {
			ErrorType string `json:"errorType"`
			Line      int    `json:"line"`
			Column    int    `json:"column"`
			Message   string `json:"message"`
		} `json:"detail"`
	}
	r.json(t, &e)
	if e.Code != 400 || e.Detail.Line != 1 || e.Detail.Column < 1 || e.Detail.ErrorType == "" || e.Detail.Message == "" {
		t.Fatalf("query error %s", r.body)
	}
}

func TestVirtualFieldsTakeEffectInQueries(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	ts.ingestNDJSON("ds", "{\"a\":2,\"b\":3}\n")
	ts.must(req{method: "POST", path: "/v2/vfields", body: map[string]any{
		"dataset": "ds", "name": "total", "expression": "a + b"}}, 200)
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
		"apl": "['ds'] | project total"}}, 200).json(t, &res)
	if len(res.Tables[0].Columns) != 1 || res.Tables[0].Columns[0][0] != float64(5) {
		t.Fatalf("virtual field result %+v", res)
	}
}

func TestLegacyStructuredQuery(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	ts.ingestNDJSON("ds", "{\"response\":200,\"request\":\"GET /a\"}\n{\"response\":500,\"request\":\"GET /b\"}\n{\"response\":302,\"request\":\"POST /c\"}\n")
	body := map[string]any{
		"aggregations":  []map[string]any{{"alias": "event_count", "op": "count", "field": "*", "argument": nil}},
		"groupBy":       []string{"success"},
		"filter":        map[string]any{"op": "contains", "field": "request", "value": "get", "caseSensitive": false, "children": nil},
		"virtualFields": []map[string]any{{"alias": "success", "expr": "toint(response) < 400"}},
		"limit":         0, "resolution": "",
	}
	var res struct {
		Format  string `json:"format"`
		Matches []any  `json:"matches"`
		Buckets struct {
			Series []any `json:"series"`
			Totals []struct {
				Group        map[string]any `json:"group"`
				Aggregations []struct {
					Op    string  `json:"op"`
					Value float64 `json:"value"`
				} `json:"aggregations"`
			} `json:"totals"`
		} `json:"buckets"`
		FieldsMeta []any `json:"fieldsMeta"`
	}
	r := ts.must(req{method: "POST", path: "/v1/datasets/ds/query?streaming-duration=1s&nocache=true", body: body}, 200)
	r.json(t, &res)
	if res.Format != "legacy" || res.Matches == nil || len(res.Buckets.Totals) != 2 {
		t.Fatalf("legacy aggregation %s", r.body)
	}
	for _, g := range res.Buckets.Totals {
		if len(g.Aggregations) != 1 || g.Aggregations[0].Op != "event_count" || g.Aggregations[0].Value != 1 {
			t.Fatalf("group %+v in %s", g, r.body)
		}
	}
	// Without aggregations the matches come back, filtered and limited.
	body = map[string]any{"filter": map[string]any{"op": "==", "field": "response", "value": 302}, "limit": 5}
	ts.must(req{method: "POST", path: "/v1/datasets/ds/query", body: body}, 200).json(t, &res)
	if len(res.Matches) != 1 {
		t.Fatalf("filtered matches %+v", res.Matches)
	}
	ts.mustErr(req{method: "POST", path: "/v1/datasets/ds/query", body: map[string]any{
		"filter": map[string]any{"op": "sounds-like", "field": "a", "value": "b"}}}, 400, "sounds-like")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/ds/query", body: map[string]any{
		"aggregations": []map[string]any{{"op": "median", "field": "a"}}}}, 400, "median")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/ds/query", body: map[string]any{"limit": 50001}}, 400, "limit")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/nope/query", body: map[string]any{}}, 404, "nope")
}
