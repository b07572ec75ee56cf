package gen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Docs datasets of the OpenTelemetry demo: otel-demo-traces,
// otel-backend-traces and otel-demo-logs.

// docsTraces draws otel-demo-traces spans (spec §4.2) from the span
// generator, with what the docs' queries read besides: a real nanosecond
// timespan in duration (as a Go duration string), status_code,
// attributes.custom as a map field and the response status code.
func docsTraces(stream int64) func(seed int64, n int) []map[string]any {
	return func(seed int64, n int) []map[string]any {
		g := NewTraces(seed*2 + stream).SetTracesPerDay(max(1, n/DocsDays/7))
		out := make([]map[string]any, n)
		for i := range out {
			s := g.NextSpan()
			e := s.toMap()
			attrs := e["attributes"].(map[string]any)
			custom, _ := attrs["custom"].(map[string]any)
			if custom == nil {
				custom = map[string]any{}
			}
			if s.DBSystem != "" {
				custom["db.system.name"] = s.DBSystem
			}
			attrs["custom"] = custom
			if h, ok := attrs["http"].(map[string]any); ok && s.HTTPStatus != 0 {
				h["response"] = map[string]any{"status_code": int64(s.HTTPStatus)}
			}
			switch {
			case s.HTTPStatus != 0:
				e["status_code"] = strconv.Itoa(s.HTTPStatus)
			case s.Error:
				e["status_code"] = "error"
			}
			e["scope"] = map[string]any{"name": "opentelemetry.instrumentation." + s.Kind, "version": "0.44b0"}
			e["links"] = []any{}
			out[i] = e
		}
		return out
	}
}

var severities = []string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"}

// docsOtelLog is an otel-demo-logs record: a log line of a demo service,
// with the trace and span it belongs to.
func docsOtelLog(r *rand.Rand, t time.Time) map[string]any {
	sev := severities[r.IntN(len(severities))]
	return map[string]any{
		"_time":         t.Format(time.RFC3339Nano),
		"trace_id":      hex(r, 32),
		"span_id":       hex(r, 16),
		"severity_text": sev,
		"body":          "processed request " + strconv.Itoa(r.IntN(10000)) + " with " + strings.ToLower(sev),
		"service":       map[string]any{"name": traceServices[r.IntN(len(traceServices))]},
		"attributes":    map[string]any{"level": strings.ToLower(sev)},
	}
}

// hex is n random lowercase hex digits.
func hex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[r.IntN(16)]
	}
	return string(b)
}
