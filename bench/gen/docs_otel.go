package gen

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Docs datasets of the OpenTelemetry demo: otel-demo-traces,
// otel-backend-traces and otel-demo-logs.

// docsSpans draws n spans of one stream and shifts them so the last
// starts just before DocsNow: a trace's span count varies, so the spans
// do not fill the DocsDays exactly, and the docs' ago(…) windows must find
// the latest traces. About a third of the spans get a few log events, so
// the events arrays the docs slice and measure are not all empty.
func docsSpans(seed int64, n int) []Span {
	g := NewTraces(seed).SetTracesPerDay(max(1, n/DocsDays/8))
	r := rand.New(rand.NewPCG(uint64(seed), docsStream("otel-span-events")))
	spans := make([]Span, n)
	var last time.Time
	for i := range spans {
		spans[i] = g.NextSpan()
		if r.IntN(3) == 0 {
			spans[i].Events += 1 + r.IntN(6)
		}
		if spans[i].Start.After(last) {
			last = spans[i].Start
		}
	}
	shift := DocsNow.Add(-time.Second).Sub(last)
	for i := range spans {
		spans[i].Start = spans[i].Start.Add(shift)
	}
	return spans
}

// docsTraces draws otel-demo-traces spans (spec §4.2) from the span
// generator, with what the docs' queries read besides: a real nanosecond
// timespan in duration (as a Go duration string), status_code,
// attributes.custom as a map field and the response status code.
func docsTraces(stream int64) func(seed int64, n int) []map[string]any {
	return func(seed int64, n int) []map[string]any {
		out := make([]map[string]any, n)
		for i, s := range docsSpans(seed*2+stream, n) {
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
			otelExampleFields(e, s)
			out[i] = e
		}
		return out
	}
}

// docsOtelLogs draws otel-demo-logs records: one log line per span of
// otel-demo-traces (the same seed and stream), with its trace_id, span_id
// and service, so the docs' joins of the two datasets on trace_id match.
func docsOtelLogs(seed int64, n int) []map[string]any {
	r := rand.New(rand.NewPCG(uint64(seed), docsStream("otel-demo-logs")))
	out := make([]map[string]any, n)
	for i, s := range docsSpans(seed*2, n) {
		sev := severities[r.IntN(len(severities))]
		if s.Error {
			sev = "ERROR"
		}
		out[i] = map[string]any{
			"_time":         s.Start.Add(s.Duration / 2).Format(time.RFC3339Nano),
			"trace_id":      s.TraceID,
			"span_id":       s.SpanID,
			"severity_text": sev,
			"body":          s.Name + ": processed request " + strconv.Itoa(r.IntN(10000)) + " with " + strings.ToLower(sev),
			"service":       map[string]any{"name": s.Service},
			"attributes":    map[string]any{"level": strings.ToLower(sev)},
		}
	}
	return out
}

var severities = []string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"}

// hex is n random lowercase hex digits.
func hex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[r.IntN(16)]
	}
	return string(b)
}
