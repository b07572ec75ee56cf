package server

import (
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// lastRun returns the latest run in a monitor's history.
func (ts *testServer) lastRun(id string) monitorRun {
	ts.t.Helper()
	var runs []monitorRun
	ts.must(req{method: "GET", path: "/v2/monitors/" + id + "/history"}, 200).json(ts.t, &runs)
	if len(runs) == 0 {
		ts.t.Fatalf("monitor %s has not run", id)
	}
	return runs[len(runs)-1]
}

// A monitor acts as the token that saved it, with that token's rights at
// each run: once the token may no longer read the dataset, or is
// deleted, the run is "forbidden" and reads nothing. A monitor stored
// before creators were recorded reads no dataset.
func TestMonitorRunsAsItsCreator(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	for _, ds := range []string{"alpha", "beta"} {
		ts.createDataset(ds)
		ts.ingestNDJSON(ds, `{"n":5}`+"\n")
	}
	tok := ts.newToken(map[string]any{"alpha": map[string]any{"query": []string{"read"}}},
		map[string]any{"monitors": []string{"create", "read"}})
	var mine, admins struct{ ID string }
	body := func(apl string) map[string]any {
		return map[string]any{"name": "sum", "aplQuery": apl, "operator": "Above", "threshold": 1, "rangeMinutes": 60}
	}
	ts.must(req{method: "POST", path: "/v2/monitors", token: tok.Token, body: body("['alpha'] | summarize sum(n)")}, 200).json(t, &mine)
	ts.must(req{method: "POST", path: "/v2/monitors", body: body("['beta'] | summarize sum(n)")}, 200).json(t, &admins)

	now := time.Now()
	ts.s.runDueMonitors(now)
	if r := ts.lastRun(mine.ID); r.State != "alert" || r.Value == nil || *r.Value != 5 {
		t.Fatalf("run as the creator with its rights: %+v", r)
	}
	if r := ts.lastRun(admins.ID); r.State != "alert" || r.Value == nil || *r.Value != 5 {
		t.Fatalf("the admin's monitor over beta: %+v", r)
	}

	// The token's rights change (alpha is taken away, beta given): the
	// next run reads nothing.
	var rec meta.TokenRecord
	if err := ts.s.meta.Get(meta.KindToken, "", tok.ID, &rec); err != nil {
		t.Fatal(err)
	}
	rec.DatasetCapabilities = map[string]meta.DatasetCaps{"beta": {Query: []string{"read"}}}
	if err := ts.s.meta.Put(meta.KindToken, "", tok.ID, &rec); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Minute)
	ts.s.runDueMonitors(now)
	r := ts.lastRun(mine.ID)
	if r.State != "forbidden" || r.Value != nil || len(r.Groups) != 0 || !strings.Contains(r.Error, `API token `+tok.ID+`, may not query dataset "alpha": nothing was read`) {
		t.Fatalf("run after the creator lost alpha: %+v", r)
	}

	// The token is deleted.
	ts.must(req{method: "DELETE", path: "/v2/tokens/" + tok.ID}, 204)
	now = now.Add(time.Minute)
	ts.s.runDueMonitors(now)
	if r := ts.lastRun(mine.ID); r.State != "forbidden" || r.Value != nil || !strings.Contains(r.Error, "no longer exists: nothing was read") {
		t.Fatalf("run after the creator was deleted: %+v", r)
	}

	// A monitor from before creators were recorded.
	if err := ts.s.meta.Delete(meta.KindMonitorOwner, ts.org, admins.ID); err != nil {
		t.Fatal(err)
	}
	ts.s.runDueMonitors(now.Add(time.Minute))
	if r := ts.lastRun(admins.ID); r.State != "forbidden" || r.Value != nil || !strings.Contains(r.Error, "no recorded creator") || !strings.Contains(r.Error, `"beta"`) {
		t.Fatalf("run of a monitor without a creator: %+v", r)
	}
	// Saving it again makes the saver its creator.
	ts.must(req{method: "PUT", path: "/v2/monitors/" + admins.ID, body: body("['beta'] | summarize sum(n)")}, 200)
	ts.s.runDueMonitors(now.Add(2 * time.Minute))
	if r := ts.lastRun(admins.ID); r.State != "alert" || r.Value == nil || *r.Value != 5 {
		t.Fatalf("run once saved again: %+v", r)
	}
}

// A monitor stored with a query that no longer plans (from before the
// check) fails its run with a clear error, and the server stays up.
func TestBadStoredMonitorFailsItsRun(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	ts.createDataset("logs")
	m := meta.Monitor{ID: "old", Name: "old", Type: "Threshold", APLQuery: "['logs'] | where", IntervalMinutes: 1}
	if err := ts.s.meta.Put(meta.KindMonitor, ts.org, m.ID, m); err != nil {
		t.Fatal(err)
	}
	ts.s.runDueMonitors(time.Now())
	if r := ts.lastRun("old"); r.State != "error" || !strings.Contains(r.Error, "the monitor's query failed: 1:") {
		t.Fatalf("run of a stored monitor whose query does not parse: %+v", r)
	}
}
