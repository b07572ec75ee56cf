package gen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Docs datasets of app integrations: Convex log streams, Vercel logs
// and Segment events, with the fields their pages' queries read.

var (
	convexPaths  = []string{"messages:list", "messages:send", "users:get", "crons:cleanup", "http:webhook"}
	convexTypes  = []string{"query", "mutation", "action", "http_action"}
	segmentEvent = []string{"Button Clicked", "AI Chat Created", "Logged In", "Signed Up", "Completed Onboarding",
		"Created Project", "Clicked Upgrade", "Page Viewed"}
)

// convexEvent is a Convex log stream event: function executions with
// their timing and usage, and scheduled-job lag.
func convexEvent(r *rand.Rand, t time.Time) map[string]any {
	data := map[string]any{}
	if r.IntN(5) == 0 {
		data["topic"] = "scheduled_job_lag"
		data["lag_seconds"] = math.Round(r.ExpFloat64()*300) / 100
	} else {
		typ := convexTypes[r.IntN(len(convexTypes))]
		fn := map[string]any{"path": convexPaths[r.IntN(len(convexPaths))], "type": typ}
		if typ == "query" {
			fn["cached"] = r.IntN(3) > 0
		}
		data["topic"] = "function_execution"
		data["function"] = fn
		data["status"] = []string{"success", "success", "success", "failure"}[r.IntN(4)]
		data["execution_time_ms"] = int64(r.ExpFloat64() * 800)
		data["usage"] = map[string]any{"database_read_documents": int64(r.IntN(200)), "database_read_bytes": int64(r.IntN(1 << 20))}
	}
	return map[string]any{
		"_time":  t.Format(time.RFC3339Nano),
		"data":   data,
		"convex": map[string]any{"project_slug": "chat-app", "deployment_name": []string{"happy-otter-123", "brave-fox-456"}[r.IntN(2)]},
	}
}

// vercelEvent is a Vercel log line; half of the messages are JSON, as
// the page's parse_json example expects.
func vercelEvent(r *rand.Rand, t time.Time) map[string]any {
	msg := httpMessages[r.IntN(len(httpMessages))]
	if r.IntN(2) == 0 {
		msg = `{"message":"user signed in","metadata":{"userId":` + strconv.Itoa(r.IntN(5000)) + `,"SignInType":"sso-google"}}`
	}
	return map[string]any{
		"_time":   t.Format(time.RFC3339Nano),
		"message": msg,
		"vercel": map[string]any{"source": []string{"lambda", "edge", "static", "build"}[r.IntN(4)],
			"route": "/api/" + []string{"login", "items", "health"}[r.IntN(3)], "region": "iad1"},
		"request": map[string]any{"method": methodNames[r.IntN(len(methodNames))], "statusCode": int64(statusCodes[r.IntN(len(statusCodes))])},
	}
}

// segmentEventOf is a Segment track event of a web app's frontend.
func segmentEventOf(r *rand.Rand, t time.Time) map[string]any {
	return map[string]any{
		"_time":  t.Format(time.RFC3339Nano),
		"event":  segmentEvent[r.IntN(len(segmentEvent))],
		"userId": "user_" + strconv.Itoa(r.IntN(300)),
		"type":   "track",
		"properties": map[string]any{
			"featureName":     []string{"AI Chat", "Dashboards", "Monitors"}[r.IntN(3)],
			"experimentGroup": []string{"control", "variant_a", "variant_b"}[r.IntN(3)],
		},
	}
}
