package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// receiver is a webhook endpoint on loopback that records what arrives
// and can fail the first requests.
type receiver struct {
	mu       sync.Mutex
	bodies   []string
	headers  []http.Header
	failNext int
	srv      *httptest.Server
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		b, _ := io.ReadAll(q.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.failNext > 0 {
			r.failNext--
			w.WriteHeader(503)
			return
		}
		r.bodies = append(r.bodies, string(b))
		r.headers = append(r.headers, q.Header.Clone())
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

// Threshold monitors fire, notify, retry a failing webhook, resolve,
// alert per group, alert on no data, and keep their state across a
// restart of the scheduler's view (it is in the metadata store).
func TestMonitorsRunAndNotify(t *testing.T) {
	notifyBackoff = time.Millisecond
	// The receivers listen on loopback, which notifiers reach only when
	// the operator allows it.
	ts := newTestServerConfig(t, Config{MonitorTick: -1, NotifyAllow: []string{"127.0.0.0/8"}})
	s := ts.s
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "logs"}}, 200)
	now := time.Now().UTC().Truncate(time.Second)
	ingest := func(status int, n int, host string) {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(`{"_time":"` + now.Add(-30*time.Second).Format(time.RFC3339) + `","status":` + itoa(int64(status)) + `,"host":"` + host + `"}` + "\n")
		}
		ts.must(req{method: "POST", path: "/v1/datasets/logs/ingest", body: b.String(), contentType: "application/x-ndjson"}, 200)
	}
	custom, plain := newReceiver(t), newReceiver(t)
	custom.failNext = 1 // the first delivery is retried
	var n1, n2 struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "custom", "properties": map[string]any{
		"customWebhook": map[string]any{"url": custom.srv.URL, "headers": map[string]string{"X-Token": "abc"},
			"body": `{"text":"{{.MonitorName}} is {{.State}} ({{.Change}}) at {{.Value}}: {{.Query}} {{.Link}}"}`}}}}, 200).json(t, &n1)
	ts.must(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "plain", "properties": map[string]any{
		"webhook": map[string]any{"url": plain.srv.URL}}}}, 200).json(t, &n2)
	var mon struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "errors", "type": "Threshold",
		"aplQuery": "['logs'] | where status >= 500 | count", "operator": "Above", "threshold": 3,
		"intervalMinutes": 1, "rangeMinutes": 5, "resolvable": true, "notifierIDs": []string{n1.ID, n2.ID}}}, 200).json(t, &mon)

	ingest(500, 5, "a")
	s.runDueMonitors(now)
	if got := custom.got(); len(got) != 1 || !strings.Contains(got[0], `errors is alert (triggered) at 5`) || custom.headers[0].Get("X-Token") != "abc" {
		t.Fatalf("custom webhook on trigger: %q %v", got, custom.headers)
	}
	var alert alertData
	if got := plain.got(); len(got) != 1 || json.Unmarshal([]byte(got[0]), &alert) != nil || alert.State != "alert" || alert.MonitorName != "errors" {
		t.Fatalf("JSON webhook on trigger: %q", got)
	}
	s.runDueMonitors(now.Add(30 * time.Second)) // not due yet
	s.runDueMonitors(now.Add(time.Minute))      // due, still alerting: no new notification
	if len(custom.got()) != 1 {
		t.Fatalf("an alert still open notified again without notifyEveryRun: %q", custom.got())
	}
	// The errors age out of the window: the monitor resolves. The tick
	// at 7 minutes performs the six runs due since the last (2 to 7
	// minutes); the run at 5 minutes no longer sees the errors.
	s.runDueMonitors(now.Add(7 * time.Minute))
	if got := custom.got(); len(got) != 2 || !strings.Contains(got[1], "is ok (resolved)") {
		t.Fatalf("resolve: %q", got)
	}
	var runs []monitorRun
	ts.must(req{method: "GET", path: "/v2/monitors/" + mon.ID + "/history"}, 200).json(t, &runs)
	if len(runs) != 8 || runs[0].State != "alert" || runs[4].State != "alert" || runs[5].State != "ok" || runs[7].State != "ok" || runs[0].Notified[0].Attempts != 2 || !runs[0].Notified[0].OK {
		t.Fatalf("history: %+v", runs)
	}

	// Grouping and no data.
	var g struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "by host", "type": "Threshold",
		"aplQuery": "['logs'] | where status >= 500 | summarize count() by host", "operator": "AboveOrEqual", "threshold": 2,
		"notifyByGroup": true, "intervalMinutes": 1, "rangeMinutes": 5, "notifierIDs": []string{n2.ID}}}, 200).json(t, &g)
	var quiet struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "heartbeat", "type": "MatchEvent",
		"aplQuery": "['logs'] | where status == 299", "alertOnNoData": true, "intervalMinutes": 1, "rangeMinutes": 5,
		"notifierIDs": []string{n2.ID}}}, 200).json(t, &quiet)
	now2 := now.Add(10 * time.Minute)
	now = now2
	ingest(503, 2, "b")
	ingest(503, 1, "c")
	before := len(plain.got())
	s.runDueMonitors(now2)
	var groups []string
	for _, b := range plain.got()[before:] {
		var a alertData
		json.Unmarshal([]byte(b), &a)
		groups = append(groups, a.MonitorName+":"+a.Group+":"+a.Change)
	}
	joined := strings.Join(groups, " ")
	if !strings.Contains(joined, "by host:host=b:triggered") || strings.Contains(joined, "host=c") || !strings.Contains(joined, "heartbeat::triggered") {
		t.Fatalf("grouped and no-data alerts: %v", groups)
	}
	// The state survives: a new run an interval later sees the open alert.
	var st monitorState
	if err := s.meta.Get(meta.KindMonitorState, s.OrgID(), g.ID, &st); err != nil || st.Groups["host=b"].State != "alert" {
		t.Fatalf("stored state %+v %v", st, err)
	}
}

// The state machine: N positive results of the last M runs trigger,
// notifyEveryRun renotifies, threshold and anomaly monitors resolve
// whether resolvable or not (axiom-go: the flag "has no effect on
// threshold monitors"), a match monitor resolves only when resolvable,
// and skipResolved closes silently.
func TestMonitorStep(t *testing.T) {
	now := time.Now()
	run := func(m *meta.Monitor, results ...bool) []string {
		g := &groupState{State: "ok"}
		var out []string
		for _, p := range results {
			out = append(out, step(m, g, p, now)+"/"+g.State)
		}
		return out
	}
	cases := []struct {
		m    meta.Monitor
		in   []bool
		want string
	}{
		{meta.Monitor{Resolvable: true}, []bool{true, true, false}, "triggered/alert /alert resolved/ok"},
		{meta.Monitor{TriggerAfterNPositiveResults: 2}, []bool{true, false, true, true}, "/ok /ok /ok triggered/alert"},
		{meta.Monitor{TriggerAfterNPositiveResults: 2, TriggerFromNRuns: 3}, []bool{true, false, true}, "/ok /ok triggered/alert"},
		{meta.Monitor{NotifyEveryRun: true}, []bool{true, true, true}, "triggered/alert renotified/alert renotified/alert"},
		{meta.Monitor{Resolvable: true, SkipResolved: true}, []bool{true, false}, "triggered/alert /ok"},
		{meta.Monitor{}, []bool{true, false}, "triggered/alert resolved/ok"},
		{meta.Monitor{Type: "Threshold"}, []bool{true, false}, "triggered/alert resolved/ok"},
		{meta.Monitor{Type: "AnomalyDetection"}, []bool{true, false}, "triggered/alert resolved/ok"},
		{meta.Monitor{Type: "MatchEvent"}, []bool{true, false}, "triggered/alert /ok"},
		{meta.Monitor{Type: "MatchEvent", Resolvable: true}, []bool{true, false}, "triggered/alert resolved/ok"},
	}
	for i, c := range cases {
		if got := strings.Join(run(&c.m, c.in...), " "); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
	for _, c := range []struct {
		op   string
		v    float64
		want bool
	}{{"Above", 4, true}, {"Above", 3, false}, {"AboveOrEqual", 3, true}, {"Below", 2, true}, {"BelowOrEqual", 3, true}, {"AboveOrBelow", 3, false}, {"AboveOrBelow", 2, true}} {
		if got := crosses(c.op, c.v, 3); got != c.want {
			t.Errorf("%s %v vs 3: %v", c.op, c.v, got)
		}
	}
}

// Disabled monitors, and monitors disabled until later, do not run.
func TestDisabledMonitorsDoNotRun(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1})
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "logs"}}, 200)
	var a, b struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "off", "aplQuery": "['logs'] | count",
		"operator": "Above", "disabled": true}}, 200).json(t, &a)
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "later", "aplQuery": "['logs'] | count",
		"operator": "Above", "disabledUntil": time.Now().Add(time.Hour)}}, 200).json(t, &b)
	ts.s.runDueMonitors(time.Now())
	for _, id := range []string{a.ID, b.ID} {
		var runs []monitorRun
		ts.must(req{method: "GET", path: "/v2/monitors/" + id + "/history"}, 200).json(t, &runs)
		if len(runs) != 0 {
			t.Errorf("monitor %s ran while disabled: %+v", id, runs)
		}
	}
}
