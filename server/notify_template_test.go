package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// axiomDefaultBody is the default template of Axiom's
// custom-webhook-notifier.mdx, as the page prints it.
const axiomDefaultBody = `{
  "action": "{{.Action}}",
  "event": {
    "monitorID": "{{.MonitorID}}",
    "body": "{{.Body}}",
    "description": "{{.Description}}",
    "queryEndTime": "{{.QueryEndTime}}",
    "queryStartTime": "{{.QueryStartTime}}",
    "timestamp": "{{.Timestamp}}",
    "title": "{{.Title}}",
    "value": {{.Value}},
    "matchedEvent": {{jsonObject .MatchedEvent}},
    "groupKeys": {{jsonArray .GroupKeys}},
    "groupValues": {{jsonArray .GroupValues}}
  }
}`

// incidentBody is the page's incident.io example.
const incidentBody = `{
  "title": "{{.Title}}",
  "description": "{{.Body}}",
  "deduplication_key": "{{.MonitorID}}",
  "status": "{{ if eq .Action "Open" }}firing{{ else }}resolved{{ end }}",
  "metadata": {
    "description": "{{.Description}}",
    "value": {{.Value}}
  },
  "source_url": "https://app.axiom.co/{your-org-id-here}/monitors/{{.MonitorID}}"
}`

// axiomEvent is the default body's shape.
type axiomEvent struct {
	Action string `json:"action"`
	Event  struct {
		MonitorID      string         `json:"monitorID"`
		Body           string         `json:"body"`
		Description    string         `json:"description"`
		QueryEndTime   string         `json:"queryEndTime"`
		QueryStartTime string         `json:"queryStartTime"`
		Timestamp      string         `json:"timestamp"`
		Title          string         `json:"title"`
		Value          float64        `json:"value"`
		MatchedEvent   map[string]any `json:"matchedEvent"`
		GroupKeys      []string       `json:"groupKeys"`
		GroupValues    []any          `json:"groupValues"`
	} `json:"event"`
}

// decodeAll parses every body a receiver got, failing on one that is
// not JSON.
func decodeAll[T any](t *testing.T, bodies []string) []T {
	t.Helper()
	out := make([]T, len(bodies))
	for i, b := range bodies {
		if err := json.Unmarshal([]byte(b), &out[i]); err != nil {
			t.Fatalf("body %d is not JSON (%v):\n%s", i, err, b)
		}
	}
	return out
}

// webhook creates a custom webhook notifier posting body to r.
func (ts *testServer) webhook(r *receiver, body string) string {
	ts.t.Helper()
	var n struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/notifiers", body: map[string]any{"name": "hook", "properties": map[string]any{
		"customWebhook": map[string]any{"url": r.srv.URL, "body": body}}}}, 200).json(ts.t, &n)
	return n.ID
}

// Axiom's documented default body renders valid JSON for a threshold
// alert (grouped, with quotes in the monitor's name and description) and
// its resolution, and so does an empty body (the default) and the page's
// incident.io example.
func TestCustomWebhookAxiomTemplates(t *testing.T) {
	notifyBackoff = time.Millisecond
	ts := newTestServerConfig(t, Config{MonitorTick: -1, NotifyAllow: []string{"127.0.0.0/8"}})
	ts.createDataset("logs")
	base := schedBase()
	var b strings.Builder
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&b, `{"_time":%q,"status":503,"host":"b"}`+"\n", base.Add(-30*time.Second).Format(time.RFC3339))
	}
	ts.ingestNDJSON("logs", b.String())
	def, empty, incident := newReceiver(t), newReceiver(t), newReceiver(t)
	ids := []string{ts.webhook(def, axiomDefaultBody), ts.webhook(empty, ""), ts.webhook(incident, incidentBody)}
	var mon struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": `5xx "errors"`, "description": "a\\b \"c\"",
		"aplQuery": "['logs'] | where status >= 500 | summarize count() by host", "operator": "AboveOrEqual", "threshold": 3,
		"notifyByGroup": true, "intervalMinutes": 1, "rangeMinutes": 2, "notifierIDs": ids}}, 200).json(t, &mon)
	ts.s.runDueMonitors(base)
	ts.s.runDueMonitors(base.Add(3 * time.Minute)) // the errors have aged out: resolved

	for name, r := range map[string]*receiver{"the page's default": def, "an empty body": empty} {
		got := decodeAll[axiomEvent](t, r.got())
		if len(got) != 2 {
			t.Fatalf("%s: %d deliveries, want 2", name, len(got))
		}
		open, closed := got[0], got[1]
		e := open.Event
		if open.Action != "Open" || closed.Action != "Closed" || e.MonitorID != mon.ID || e.Title != `5xx "errors"` ||
			e.Description != `a\b "c"` || e.Value != 5 || e.MatchedEvent != nil ||
			strings.Join(e.GroupKeys, ",") != "host" || len(e.GroupValues) != 1 || e.GroupValues[0] != "b" ||
			e.Body != "Current value of 5 is above or equal to the threshold value of 3" {
			t.Fatalf("%s: alert %+v", name, open)
		}
		if e.QueryEndTime != base.String() || e.QueryStartTime != base.Add(-2*time.Minute).String() || e.Timestamp == "" {
			t.Fatalf("%s: times %q %q %q", name, e.QueryStartTime, e.QueryEndTime, e.Timestamp)
		}
		if closed.Event.Body != "The query no longer returns a value for this group" || closed.Event.Value != 0 ||
			closed.Event.GroupValues[0] != "b" {
			t.Fatalf("%s: resolution %+v", name, closed)
		}
	}
	type incidentEvent struct {
		Title, Status string
		Metadata      struct{ Value float64 }
	}
	got := decodeAll[incidentEvent](t, incident.got())
	if len(got) != 2 || got[0].Status != "firing" || got[1].Status != "resolved" || got[0].Metadata.Value != 5 || got[0].Title != `5xx "errors"` {
		t.Fatalf("incident.io example: %+v", got)
	}
}

// A template calling a function Axiom's do not have fails its delivery
// with the reason in the history, and nothing is sent.
func TestCustomWebhookTemplateErrors(t *testing.T) {
	ts := newTestServerConfig(t, Config{MonitorTick: -1, NotifyAllow: []string{"127.0.0.0/8"}})
	r := newReceiver(t)
	id := ts.webhook(r, `{"x": {{jsonMap .MatchedEvent}}}`)
	var mon struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "m", "aplQuery": "print v = 5",
		"operator": "Above", "threshold": 1, "notifierIDs": []string{id}}}, 200).json(t, &mon)
	ts.s.runDueMonitors(schedBase())
	run := ts.lastRun(mon.ID)
	if len(run.Notified) != 1 || run.Notified[0].OK || !strings.Contains(run.Notified[0].Error, `function "jsonMap" not defined`) || len(r.got()) != 0 {
		t.Fatalf("run %+v, sent %q", run, r.got())
	}
}

// A match monitor notifies every run that finds matching events, one
// notification per event with the event in matchedEvent and as the body
// (it used to notify once and swallow matches while it stayed in alert);
// past maxMatchNotifications a run records how many it did not send. It
// is not resolvable, so a run without matches sends nothing.
func TestMatchMonitorNotifiesEveryBatch(t *testing.T) {
	notifyBackoff = time.Millisecond
	ts := newTestServerConfig(t, Config{MonitorTick: -1, NotifyAllow: []string{"127.0.0.1/32"}})
	ts.createDataset("logs")
	r := newReceiver(t)
	nid := ts.webhook(r, axiomDefaultBody)
	base := schedBase()
	var mon struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "panics", "type": "MatchEvent",
		"aplQuery": "['logs'] | where level == 'panic' | project msg", "intervalMinutes": 1, "rangeMinutes": 1,
		"notifierIDs": []string{nid}}}, 200).json(t, &mon)
	plant := func(minute int, msgs ...string) {
		var b strings.Builder
		for i, m := range msgs {
			at := base.Add(time.Duration(minute)*time.Minute + time.Duration(i)*time.Second)
			fmt.Fprintf(&b, `{"_time":%q,"level":"panic","msg":%q}`+"\n", at.Format(time.RFC3339), m)
			fmt.Fprintf(&b, `{"_time":%q,"level":"info","msg":"fine"}`+"\n", at.Format(time.RFC3339))
		}
		ts.ingestNDJSON("logs", b.String())
	}
	plant(0, `a "quoted" panic`, "b")
	plant(1, "c")
	plant(3, "d")
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf("m%02d", i)
	}
	plant(4, many...)
	for m := 1; m <= 5; m++ {
		ts.s.runDueMonitors(base.Add(time.Duration(m) * time.Minute))
	}
	var msgs []string
	for _, e := range decodeAll[axiomEvent](t, r.got()) {
		if e.Action != "Open" || e.Event.MatchedEvent == nil {
			t.Fatalf("match notification %+v", e)
		}
		msg, _ := e.Event.MatchedEvent["msg"].(string)
		var body map[string]any
		if json.Unmarshal([]byte(e.Event.Body), &body) != nil || body["msg"] != msg {
			t.Fatalf("body %q does not carry the event %v", e.Event.Body, e.Event.MatchedEvent)
		}
		msgs = append(msgs, msg)
	}
	slices.Sort(msgs) // a run's events come newest first
	if len(msgs) != 4+maxMatchNotifications || strings.Join(msgs[:4], ",") != `a "quoted" panic,b,c,d` {
		t.Fatalf("notified %q", msgs)
	}
	runs := ts.history(mon.ID)
	if len(runs) != 5 || runs[1].Groups[0].Change != "matched" || runs[2].State != "ok" || len(runs[2].Notified) != 0 ||
		runs[4].Unnotified != 2 || len(runs[4].Notified) != maxMatchNotifications {
		t.Fatalf("history %+v", runs)
	}
}

// A target that fails every attempt for a match monitor's first event is
// not tried for the run's other events: the history says how many were
// not sent.
func TestMatchMonitorFailingTargetTriedOnce(t *testing.T) {
	notifyBackoff = time.Millisecond
	ts := newTestServerConfig(t, Config{MonitorTick: -1, NotifyAllow: []string{"127.0.0.1/32"}})
	ts.createDataset("logs")
	r := newReceiver(t)
	r.failNext = 1000
	nid := ts.webhook(r, "")
	base := schedBase()
	var mon struct{ ID string }
	ts.must(req{method: "POST", path: "/v2/monitors", body: map[string]any{"name": "panics", "type": "MatchEvent",
		"aplQuery": "['logs'] | where level == 'panic'", "intervalMinutes": 1, "rangeMinutes": 1,
		"notifierIDs": []string{nid}}}, 200).json(t, &mon)
	var b strings.Builder
	for i := 0; i < 4; i++ {
		fmt.Fprintf(&b, `{"_time":%q,"level":"panic"}`+"\n", base.Add(-time.Duration(i+1)*time.Second).Format(time.RFC3339))
	}
	ts.ingestNDJSON("logs", b.String())
	ts.s.runDueMonitors(base)
	run := ts.lastRun(mon.ID)
	r.mu.Lock()
	tried := 1000 - r.failNext
	r.mu.Unlock()
	if tried != notifyAttempts || len(run.Notified) != 2 || run.Notified[0].Attempts != notifyAttempts ||
		!strings.Contains(run.Notified[1].Error, "3 more matching events not sent") {
		t.Fatalf("%d requests, run %+v", tried, run)
	}
}
