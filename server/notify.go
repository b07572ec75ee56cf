package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// Notifiers that deliver (issue 13): a custom webhook (URL, headers and a
// body template over the alert) and a plain JSON webhook. Each delivery
// has a timeout and a few retries with backoff, and its result goes into
// the monitor's run. Other notifier kinds (email, Slack, ...) need
// services this server cannot reach; their deliveries are recorded as
// unsupported, never silently dropped.

// alertData is what the JSON webhook sends, and (as templateData) what
// a custom webhook's body template sees: Axiom's variables
// (custom-webhook-notifier.mdx: Action, MonitorID, Body, Description,
// QueryStartTime, QueryEndTime, Timestamp, Title, Value, MatchedEvent,
// GroupKeys, GroupValues) and aplite's own (MonitorName, State, Change,
// Group, Threshold, Query, Link, Time).
type alertData struct {
	Action         string         `json:"action"` // Open or Closed
	MonitorID      string         `json:"monitorId"`
	Title          string         `json:"title"`
	MonitorName    string         `json:"monitorName"`
	Body           string         `json:"body"`
	Description    string         `json:"description"`
	State          string         `json:"state"`  // alert or ok
	Change         string         `json:"change"` // triggered, resolved, renotified, matched
	Group          string         `json:"group,omitempty"`
	GroupKeys      []string       `json:"groupKeys,omitempty"`
	GroupValues    []any          `json:"groupValues,omitempty"`
	Value          *float64       `json:"value,omitempty"`
	Threshold      float64        `json:"threshold"`
	MatchedEvent   map[string]any `json:"matchedEvent,omitempty"`
	Query          string         `json:"query"`
	QueryStartTime time.Time      `json:"queryStartTime"`
	QueryEndTime   time.Time      `json:"queryEndTime"`
	Link           string         `json:"link"`
	Time           string         `json:"time"`
}

type deliveryEntry struct {
	Notifier string `json:"notifier"`
	OK       bool   `json:"ok"`
	Status   int    `json:"status,omitempty"`
	Attempts int    `json:"attempts"`
	Error    string `json:"error,omitempty"`
}

// notifyTimeout bounds one delivery attempt.
const notifyTimeout = 10 * time.Second

// notifyAttempts and notifyBackoff bound retries (the first wait).
var (
	notifyAttempts = 3
	notifyBackoff  = 200 * time.Millisecond
)

// notify delivers one group's change through the monitor's notifiers:
// one alert, or for a match monitor one per matching event.
func (s *Server) notify(org string, m *meta.Monitor, r groupResult, win runSpan, now time.Time) []deliveryEntry {
	data := alertData{Action: "Open", MonitorID: m.ID, Title: m.Name, MonitorName: m.Name, Description: m.Description,
		State: r.State, Change: r.Change, Group: r.Group, GroupKeys: r.Keys, GroupValues: r.Values, Value: r.Value,
		Threshold: m.Threshold, Query: m.APLQuery, QueryStartTime: win.Start.UTC(), QueryEndTime: win.End.UTC(),
		Link: fmt.Sprintf("http://%s/?monitor=%s", s.cfg.Advertise, m.ID), Time: now.UTC().Format(time.RFC3339)}
	if r.Change == "resolved" {
		data.Action = "Closed"
	}
	data.Body = alertBody(m, r)
	alerts := []alertData{data}
	if len(r.Events) > 0 {
		alerts = alerts[:0]
		for _, ev := range r.Events {
			a := data
			a.MatchedEvent = ev
			b, _ := json.Marshal(ev)
			a.Body = string(b)
			alerts = append(alerts, a)
		}
	}
	var out []deliveryEntry
	for _, id := range m.NotifierIDs {
		var n meta.Notifier
		if err := s.meta.Get(meta.KindNotifier, org, id, &n); err != nil {
			out = append(out, deliveryEntry{Notifier: id, Error: "notifier not found"})
			continue
		}
		if now.Before(n.DisabledUntil) {
			out = append(out, deliveryEntry{Notifier: id, Error: "notifier disabled until " + n.DisabledUntil.Format(time.RFC3339)})
			continue
		}
		for i, a := range alerts {
			e := s.deliver(n, a, now)
			out = append(out, e)
			if !e.OK && i+1 < len(alerts) {
				// A target that failed every attempt is not tried again
				// for each other event of the run (ten timeouts would hold
				// the scheduler for minutes).
				out = append(out, deliveryEntry{Notifier: id, Error: fmt.Sprintf(
					"%d more matching events not sent: the notifier failed on this run's previous one", len(alerts)-i-1)})
				break
			}
		}
	}
	return out
}

// alertBody is Axiom's message for a threshold or anomaly alert: the
// value and what it was compared with.
func alertBody(m *meta.Monitor, r groupResult) string {
	if r.Value == nil {
		if r.Change == "resolved" {
			return "The query no longer returns a value for this group"
		}
		return "The query returned no data"
	}
	v := strconv.FormatFloat(*r.Value, 'g', -1, 64)
	op := operatorWords[m.Operator]
	if op == "" {
		op = "above"
	}
	not := ""
	if r.Change == "resolved" {
		not = "no longer "
	}
	if r.Expected != nil {
		return fmt.Sprintf("Current value of %s is %s%s the expected value of %s (tolerated: %s to %s)", v, not, op,
			strconv.FormatFloat(*r.Expected, 'g', 6, 64), strconv.FormatFloat(*r.Lower, 'g', 6, 64), strconv.FormatFloat(*r.Upper, 'g', 6, 64))
	}
	return fmt.Sprintf("Current value of %s is %s%s the threshold value of %s", v, not, op, strconv.FormatFloat(m.Threshold, 'g', -1, 64))
}

var operatorWords = map[string]string{"Below": "below", "BelowOrEqual": "below or equal to", "Above": "above",
	"AboveOrEqual": "above or equal to", "AboveOrBelow": "above or below"}

// deliver sends one alert through one notifier.
func (s *Server) deliver(n meta.Notifier, data alertData, now time.Time) deliveryEntry {
	var props struct {
		CustomWebhook *struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
			Body    string            `json:"body"`
		} `json:"customWebhook"`
		Webhook *struct {
			URL string `json:"url"`
		} `json:"webhook"`
	}
	_ = json.Unmarshal(n.Properties, &props)
	e := deliveryEntry{Notifier: n.ID}
	var url, body string
	headers := map[string]string{"Content-Type": "application/json"}
	switch {
	case props.CustomWebhook != nil:
		url = props.CustomWebhook.URL
		var err error
		if body, err = renderBody(props.CustomWebhook.Body, data, now); err != nil {
			e.Error = "body template: " + err.Error()
			return e
		}
		for k, v := range props.CustomWebhook.Headers {
			headers[k] = v
		}
	case props.Webhook != nil:
		url = props.Webhook.URL
		b, _ := json.Marshal(data)
		body = string(b)
	default:
		e.Error = "this notifier kind is not delivered by aplite (custom webhook and webhook are)"
		return e
	}
	client := s.notifyPolicy().client(notifyTimeout)
	defer client.CloseIdleConnections()
	wait := notifyBackoff
	for e.Attempts = 1; ; e.Attempts++ {
		e.Status, e.Error = s.post(client, n.ID, url, headers, body)
		if e.Error == "" && e.Status/100 == 2 {
			e.OK = true
			return e
		}
		if e.Attempts >= notifyAttempts || e.Status/100 == 4 { // a 4xx will not get better
			return e
		}
		time.Sleep(wait)
		wait *= 2
	}
}

// post sends one attempt. What the history records says only that the
// delivery failed, and the status when the target answered: telling a
// refused connection from a timeout or a DNS failure would make
// notifiers a scanner of the server's network. The server's log keeps
// the cause for its operator.
func (s *Server) post(client *http.Client, notifier, url string, headers map[string]string, body string) (int, string) {
	req, err := http.NewRequestWithContext(s.life, "POST", url, bytes.NewBufferString(body))
	if err != nil {
		return 0, "delivery failed: the URL is not valid"
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintf(s.cfg.Log, "aplite: notifier %s: delivery failed: %v\n", notifier, err)
		return 0, "delivery failed"
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Sprintf("delivery failed: the target answered %d", resp.StatusCode)
	}
	return resp.StatusCode, ""
}
