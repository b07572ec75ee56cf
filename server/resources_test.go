package server

import (
	"reflect"
	"strings"
	"testing"
)

// crudCheck creates, reads, lists, updates and deletes one resource and
// checks that every answer renders the record the same way.
func crudCheck(t *testing.T, ts *testServer, path string, create, update map[string]any, check func(created, updated map[string]any)) {
	t.Helper()
	var created, got, updated, after map[string]any
	ts.must(req{method: "POST", path: path, body: create}, 200).json(t, &created)
	id, _ := created["id"].(string)
	if id == "" {
		t.Fatalf("%s: create answered no id: %v", path, created)
	}
	ts.must(req{method: "GET", path: path + "/" + id}, 200).json(t, &got)
	if !reflect.DeepEqual(created, got) {
		t.Fatalf("%s: get %v != create %v", path, got, created)
	}
	var list []map[string]any
	ts.must(req{method: "GET", path: path}, 200).json(t, &list)
	found := false
	for _, e := range list {
		found = found || reflect.DeepEqual(e, got)
	}
	if !found {
		t.Fatalf("%s: list %v lacks %v", path, list, got)
	}
	ts.must(req{method: "PUT", path: path + "/" + id, body: update}, 200).json(t, &updated)
	ts.must(req{method: "GET", path: path + "/" + id}, 200).json(t, &after)
	if !reflect.DeepEqual(updated, after) || updated["id"] != id {
		t.Fatalf("%s: after update get %v != %v", path, after, updated)
	}
	check(created, updated)
	ts.must(req{method: "DELETE", path: path + "/" + id}, 204)
	ts.mustErr(req{method: "GET", path: path + "/" + id}, 404, "not found")
	ts.mustErr(req{method: "DELETE", path: path + "/" + id}, 404, "not found")
	ts.mustErr(req{method: "PUT", path: path + "/" + id, body: update}, 404, "not found")
}

func TestGroups(t *testing.T) {
	ts := newTestServer(t)
	crudCheck(t, ts, "/v2/rbac/groups",
		map[string]any{"name": "eng", "description": "d"},
		map[string]any{"name": "eng2", "members": []string{"u1"}, "roles": []string{"r1"}},
		func(c, u map[string]any) {
			if !reflect.DeepEqual(c["members"], []any{}) || c["isManaged"] != false ||
				u["name"] != "eng2" || !reflect.DeepEqual(u["roles"], []any{"r1"}) || u["description"] != "d" {
				t.Fatalf("group %v -> %v", c, u)
			}
		})
	ts.must(req{method: "POST", path: "/v2/rbac/groups", body: map[string]any{"name": "ops"}}, 200)
	var other map[string]any
	ts.must(req{method: "POST", path: "/v2/rbac/groups", body: map[string]any{"name": "dev"}}, 200).json(t, &other)
	ts.mustErr(req{method: "POST", path: "/v2/rbac/groups", body: map[string]any{"name": "OPS"}}, 409, "already exists")
	ts.mustErr(req{method: "PUT", path: "/v2/rbac/groups/" + other["id"].(string), body: map[string]any{"name": "ops"}}, 409, "already exists")
	ts.mustErr(req{method: "POST", path: "/v2/rbac/groups", body: map[string]any{"description": "x"}}, 400, "name is required")
	ts.mustErr(req{method: "POST", path: "/v2/rbac/groups", body: map[string]any{"name": strings.Repeat("n", 257)}}, 400, "name must be at most")
}

func TestVirtualFieldsCRUD(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	ts.createDataset("other")
	crudCheck(t, ts, "/v2/vfields",
		map[string]any{"dataset": "ds", "name": "f", "expression": "a + b", "type": "number"},
		map[string]any{"dataset": "ds", "name": "f", "expression": "a - b"},
		func(c, u map[string]any) {
			if c["type"] != "number" || u["expression"] != "a - b" || u["type"] != nil {
				t.Fatalf("vfield %v -> %v", c, u)
			}
		})
	ts.must(req{method: "POST", path: "/v2/vfields", body: map[string]any{"dataset": "ds", "name": "g", "expression": "1"}}, 200)
	ts.must(req{method: "POST", path: "/v2/vfields", body: map[string]any{"dataset": "other", "name": "g", "expression": "1"}}, 200)
	var list []map[string]any
	ts.must(req{method: "GET", path: "/v2/vfields?dataset=other"}, 200).json(t, &list)
	if len(list) != 1 || list[0]["dataset"] != "other" {
		t.Fatalf("filtered list %v", list)
	}
	for _, missing := range []string{"dataset", "name", "expression"} {
		body := map[string]any{"dataset": "ds", "name": "h", "expression": "1"}
		delete(body, missing)
		ts.mustErr(req{method: "POST", path: "/v2/vfields", body: body}, 400, missing+" is required")
	}
	ts.mustErr(req{method: "POST", path: "/v2/vfields", body: map[string]any{"dataset": "nope", "name": "h", "expression": "1"}}, 404, "nope")
	ts.mustErr(req{method: "POST", path: "/v2/vfields", body: map[string]any{"dataset": "ds", "name": "g", "expression": "2"}}, 409, "already has")
	// Deleting a dataset deletes its virtual fields.
	ts.must(req{method: "DELETE", path: "/v2/datasets/other"}, 204)
	ts.must(req{method: "GET", path: "/v2/vfields?dataset=other"}, 200).json(t, &list)
	if len(list) != 0 {
		t.Fatalf("vfields of a deleted dataset %v", list)
	}
}

func TestStarredQueries(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds") // a stored query is planned when it is saved
	crudCheck(t, ts, "/v2/apl-starred-queries",
		map[string]any{"kind": "apl", "name": "errors", "dataset": "ds",
			"query":    map[string]any{"apl": "['ds'] | where status >= 500", "startTime": "now-1h"},
			"metadata": map[string]any{"k": "v"}},
		map[string]any{"name": "errors2", "query": map[string]any{"apl": "['ds'] | count"}},
		func(c, u map[string]any) {
			q := c["query"].(map[string]any)
			if c["who"] == "" || q["startTime"] != "now-1h" || u["name"] != "errors2" || u["kind"] != "apl" {
				t.Fatalf("starred %v -> %v", c, u)
			}
		})
	for _, n := range []string{"alpha", "beta", "gamma"} {
		ts.must(req{method: "POST", path: "/v2/apl-starred-queries", body: map[string]any{"name": n,
			"query": map[string]any{"apl": "print '" + n + "'"}}}, 200)
	}
	ts.must(req{method: "POST", path: "/v2/apl-starred-queries", body: map[string]any{"name": "x", "who": "someone-else",
		"query": map[string]any{"apl": "print 1"}}}, 200)
	count := func(q string) int {
		var l []map[string]any
		ts.must(req{method: "GET", path: "/v2/apl-starred-queries" + q}, 200).json(t, &l)
		return len(l)
	}
	for q, want := range map[string]int{"": 4, "?limit=2": 2, "?who=all&limit=100": 4, "?who=me": 3, "?who=someone-else": 1, "?qs=beta": 1} {
		if got := count(q); got != want {
			t.Errorf("list%s: %d, want %d", q, got, want)
		}
	}
	post := func(body any) req { return req{method: "POST", path: "/v2/apl-starred-queries", body: body} }
	ts.mustErr(post(map[string]any{"query": map[string]any{"apl": "x"}}), 400, "name is required")
	ts.mustErr(post(map[string]any{"name": "n"}), 400, "query is required")
	ts.mustErr(post(map[string]any{"name": "n", "query": map[string]any{}}), 400, "query.apl is required")
	ts.mustErr(post(map[string]any{"name": "n", "query": "text"}), 400, "query must be an object")
	ts.mustErr(post(map[string]any{"name": "n", "kind": "sql", "query": map[string]any{"apl": "x"}}), 400, "kind")
	ts.mustErr(req{method: "GET", path: "/v2/apl-starred-queries?limit=-1"}, 400, "limit")
}

func TestMonitorsAndNotifiers(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds1") // a monitor's query is planned when it is saved
	monitor := map[string]any{"createdAt": "0001-01-01T00:00:00Z", "createdBy": "", "name": "Test Monitor",
		"type": "Threshold", "description": "A test monitor", "aplQuery": "['ds1'] | summarize count()",
		"operator": "BelowOrEqual", "threshold": 1, "alertOnNoData": false, "notifyByGroup": false, "resolvable": false,
		"notifierIDs": nil, "intervalMinutes": 1, "rangeMinutes": 5, "disabled": false,
		"disabledUntil": "0001-01-01T00:00:00Z", "secondDelay": 10, "notifyEveryRun": true, "triggerFromNRuns": 3,
		"triggerAfterNPositiveResults": 2}
	upd := map[string]any{}
	for k, v := range monitor {
		upd[k] = v
	}
	upd["name"], upd["threshold"] = "Renamed", 7.5
	crudCheck(t, ts, "/v2/monitors", monitor, upd, func(c, u map[string]any) {
		if c["createdBy"] == "" || c["createdAt"] == "0001-01-01T00:00:00Z" || c["secondDelay"] != float64(10) ||
			c["notifierIDs"] != nil || u["name"] != "Renamed" || u["threshold"] != 7.5 || u["createdAt"] != c["createdAt"] {
			t.Fatalf("monitor %v -> %v", c, u)
		}
	})
	bad := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range monitor {
			m[kk] = vv
		}
		m[k] = v
		return m
	}
	ts.mustErr(req{method: "POST", path: "/v2/monitors", body: bad("name", "")}, 400, "name is required")
	ts.mustErr(req{method: "POST", path: "/v2/monitors", body: bad("operator", "Sideways")}, 400, "operator")
	ts.mustErr(req{method: "POST", path: "/v2/monitors", body: bad("type", "Magic")}, 400, "type")
	ts.mustErr(req{method: "POST", path: "/v2/monitors", body: bad("aplQuery", "")}, 400, "aplQuery")
	ts.mustErr(req{method: "POST", path: "/v2/monitors", body: bad("mplQuery", "x")}, 400, "exactly one")

	notifier := map[string]any{"name": "CW", "disabledUntil": "0001-01-01T00:00:00Z",
		"properties": map[string]any{"customWebhook": map[string]any{"URL": "http://example.com/webhook",
			"Headers": map[string]any{"Authorization": "Bearer token"}, "Body": `{"key":"value"}`}}}
	crudCheck(t, ts, "/v2/notifiers", notifier,
		map[string]any{"name": "Mail", "properties": map[string]any{"email": map[string]any{"emails": []string{"a@b.c"}}}},
		func(c, u map[string]any) {
			cw := c["properties"].(map[string]any)["customWebhook"].(map[string]any)
			if cw["URL"] != "http://example.com/webhook" || u["name"] != "Mail" || u["createdAt"] != c["createdAt"] {
				t.Fatalf("notifier %v -> %v", c, u)
			}
		})
	ts.mustErr(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "x"}}, 400, "properties is required")
	ts.mustErr(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "x", "properties": map[string]any{"pigeon": map[string]any{}}}}, 400, "pigeon")
	ts.mustErr(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"properties": map[string]any{"slack": map[string]any{}}}}, 400, "name is required")
}

func TestDashboards(t *testing.T) {
	ts := newTestServer(t)
	doc := map[string]any{"name": "d", "charts": []any{map[string]any{"id": "note-1", "type": "Note"}}, "schemaVersion": 2}
	var created map[string]any
	ts.must(req{method: "POST", path: "/v2/dashboards", body: map[string]any{"uid": "dash-1", "dashboard": doc,
		"overwrite": true, "message": "m"}}, 200).json(t, &created)
	if created["uid"] != "dash-1" || created["dashboard"].(map[string]any)["uid"] != "dash-1" {
		t.Fatalf("created %v", created)
	}
	ts.mustErr(req{method: "POST", path: "/v2/dashboards", body: map[string]any{"uid": "dash-1", "dashboard": doc}}, 409, "already exists")
	doc["name"] = "renamed"
	var updated, got map[string]any
	ts.must(req{method: "PUT", path: "/v2/dashboards/uid/dash-1", body: map[string]any{"dashboard": doc, "overwrite": true}}, 200).json(t, &updated)
	ts.must(req{method: "GET", path: "/v2/dashboards/uid/dash-1"}, 200).json(t, &got)
	if !reflect.DeepEqual(updated, got) || got["dashboard"].(map[string]any)["name"] != "renamed" || got["version"] != float64(2) {
		t.Fatalf("updated %v get %v", updated, got)
	}
	// A uid inside the document is used when the body has none.
	ts.must(req{method: "POST", path: "/v2/dashboards", body: map[string]any{"dashboard": map[string]any{"uid": "inner", "name": "x"}}}, 200)
	var list []map[string]any
	ts.must(req{method: "GET", path: "/v2/dashboards"}, 200).json(t, &list)
	if len(list) != 2 {
		t.Fatalf("list %v", list)
	}
	ts.must(req{method: "GET", path: "/v2/dashboards?limit=1&offset=1"}, 200).json(t, &list)
	if len(list) != 1 || list[0]["uid"] != "inner" {
		t.Fatalf("paged list %v", list)
	}
	raw := ts.must(req{method: "GET", path: "/v2/dashboards?offset=5"}, 200)
	if strings.TrimSpace(string(raw.body)) != "[]" {
		t.Fatalf("empty page %s", raw.body)
	}
	ts.mustErr(req{method: "GET", path: "/v2/dashboards?limit=x"}, 400, "limit")
	ts.mustErr(req{method: "POST", path: "/v2/dashboards", body: map[string]any{"uid": "u"}}, 400, "dashboard is required")
	ts.mustErr(req{method: "POST", path: "/v2/dashboards", body: map[string]any{"dashboard": []int{1}}}, 400, "JSON object")
	ts.must(req{method: "DELETE", path: "/v2/dashboards/uid/dash-1"}, 204)
	ts.mustErr(req{method: "GET", path: "/v2/dashboards/uid/dash-1"}, 404, "not found")
	ts.mustErr(req{method: "PUT", path: "/v2/dashboards/uid/dash-1", body: map[string]any{"dashboard": doc}}, 404, "not found")
	ts.mustErr(req{method: "DELETE", path: "/v2/dashboards/uid/dash-1"}, 404, "not found")
}
