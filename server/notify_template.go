package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"text/template"
	"time"
)

// A custom webhook's body is a Go template over an alert, as Axiom's
// (custom-webhook-notifier.mdx). The body is sent as application/json and
// Axiom's documented default places the text variables inside JSON
// strings ("body": "{{.Body}}"), where a match monitor's Body, a JSON
// event, would otherwise break the document: so the text variables are
// given escaped for a JSON string, and the structured ones (MatchedEvent,
// GroupKeys, GroupValues) are written as JSON with jsonObject and
// jsonArray. An empty body is Axiom's default.

// defaultWebhookBody is the default template the page documents.
const defaultWebhookBody = `{
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

// templateData is what a body template sees. Times print as Go prints
// them ("2024-06-28 14:55:57.631364493 +0000 UTC", Axiom's examples);
// Value is 0 when there is none (a no-data alert, a match), as Axiom's.
type templateData struct {
	Action, MonitorID, Title, MonitorName, Body, Description string
	State, Change, Group, Query, Link, Time                  string
	QueryStartTime, QueryEndTime, Timestamp                  time.Time
	Value, Threshold                                         float64
	MatchedEvent                                             map[string]any
	GroupKeys                                                []string
	GroupValues                                              []any
}

// templateFuncs are the functions Axiom's templates call.
var templateFuncs = template.FuncMap{
	"jsonObject": toJSON,
	"jsonArray":  toJSON,
}

// toJSON writes v as JSON (null for nothing), without HTML escapes.
func toJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// jsonText escapes s for the inside of a JSON string.
func jsonText(s string) string {
	q, _ := toJSON(s)
	return q[1 : len(q)-1]
}

// renderBody executes a body template (Axiom's default when empty) over
// one alert delivered at now.
func renderBody(body string, a alertData, now time.Time) (string, error) {
	if strings.TrimSpace(body) == "" {
		body = defaultWebhookBody
	}
	tmpl, err := template.New("body").Funcs(templateFuncs).Parse(body)
	if err != nil {
		return "", err
	}
	d := templateData{Action: a.Action, MonitorID: jsonText(a.MonitorID), Title: jsonText(a.Title),
		MonitorName: jsonText(a.MonitorName), Body: jsonText(a.Body), Description: jsonText(a.Description),
		State: a.State, Change: a.Change, Group: jsonText(a.Group), Query: jsonText(a.Query), Link: jsonText(a.Link),
		Time: a.Time, QueryStartTime: a.QueryStartTime.UTC(), QueryEndTime: a.QueryEndTime.UTC(),
		Timestamp: now.UTC().Truncate(time.Second), Threshold: a.Threshold, MatchedEvent: a.MatchedEvent,
		GroupKeys: a.GroupKeys, GroupValues: a.GroupValues}
	if a.Value != nil {
		d.Value = *a.Value
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}
