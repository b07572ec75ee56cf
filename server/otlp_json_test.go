package server

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The bodies in testdata/otlp-js-*.json were captured from the JavaScript
// OpenTelemetry SDK, the default exporter of Node and browser apps:
// @opentelemetry/sdk-trace-base 2.12.1 with exporter-trace-otlp-http
// 0.223.1, and @opentelemetry/sdk-logs 0.223.1 with exporter-logs-otlp-http
// 0.223.1 (node 20), posting to a local capture server. One server span
// with a remote parent and one link, and one log record emitted inside it.
const (
	jsTraceID  = "5b8efff798038103d269b633813fc60c"
	jsSpanID   = "32c782f837b78df4"
	jsParentID = "eee19b7ec3c1b174"
	jsLinkTID  = "0af7651916cd43dd8448eb211c80319c"
	jsLinkSID  = "b7ad6b7169203331"
)

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsTracesProto is the captured trace export as protobuf, built here from
// the ids the exporter was given, not from the captured JSON.
func jsTracesProto(t *testing.T) []byte {
	sp := &tracepb.Span{TraceId: mustHex(t, jsTraceID), SpanId: mustHex(t, jsSpanID), ParentSpanId: mustHex(t, jsParentID),
		Name: "GET /cart", Kind: tracepb.Span_SPAN_KIND_SERVER,
		StartTimeUnixNano: 1795846094332000000, EndTimeUnixNano: 1795846094335889929,
		Attributes: []*commonpb.KeyValue{str("http.method", "GET")},
		Links:      []*tracepb.Span_Link{{TraceId: mustHex(t, jsLinkTID), SpanId: mustHex(t, jsLinkSID)}}}
	td := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource:   &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "checkout")}},
		ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "capture"}, Spans: []*tracepb.Span{sp}}},
	}}}
	b, err := proto.Marshal(td)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A trace exported by the JavaScript SDK as JSON keeps its hex ids, and
// the same span sent as protobuf reads back the same.
func TestOTLPJSONFromJSExporter(t *testing.T) {
	ts := newTestServer(t)
	bodies := map[string]struct {
		body []byte
		ct   string
	}{
		"json": {readFixture(t, "otlp-js-traces.json"), "application/json"},
		"pb":   {jsTracesProto(t), "application/x-protobuf"},
	}
	for ds, b := range bodies {
		ts.createDataset(ds)
		if r := ts.do(req{method: "POST", path: "/v1/traces", body: b.body, contentType: b.ct,
			headers: map[string]string{"X-Axiom-Dataset": ds}}); r.status != 200 {
			t.Fatalf("%s export: %d %s", ds, r.status, r.body)
		}
		var res tabular
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['" + ds + `']
			| project trace_id, span_id, parent_span_id, link_trace = tostring(links[0].trace_id),
			  link_span = tostring(links[0].span_id), name, kind, ['service.name'], _time`}}, 200).json(t, &res)
		c := res.Tables[0].Columns
		want := []any{jsTraceID, jsSpanID, jsParentID, jsLinkTID, jsLinkSID, "GET /cart", "server", "checkout",
			"2026-11-28T06:08:14.332Z"}
		if len(c) != len(want) || len(c[0]) != 1 {
			t.Fatalf("%s: columns %v", ds, c)
		}
		for i, w := range want {
			if c[i][0] != w {
				t.Errorf("%s: %s = %v, want %v", ds, res.Tables[0].Fields[i].Name, c[i][0], w)
			}
		}
	}
}

// A log record exported by the JavaScript SDK as JSON keeps the hex ids of
// the span it was emitted in; the protobuf form agrees.
func TestOTLPJSONLogsFromJSExporter(t *testing.T) {
	ts := newTestServer(t)
	lr := &logspb.LogRecord{TimeUnixNano: 1795846094333000000, SeverityText: "INFO", SeverityNumber: 9,
		Body:    &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "cart loaded"}},
		TraceId: mustHex(t, jsTraceID), SpanId: mustHex(t, jsSpanID)}
	pb, _ := proto.Marshal(&logspb.LogsData{ResourceLogs: []*logspb.ResourceLogs{{
		ScopeLogs: []*logspb.ScopeLogs{{LogRecords: []*logspb.LogRecord{lr}}}}}})
	for ds, b := range map[string][]byte{"json": readFixture(t, "otlp-js-logs.json"), "pb": pb} {
		ts.createDataset(ds)
		ct := "application/x-protobuf"
		if ds == "json" {
			ct = "application/json"
		}
		if r := ts.do(req{method: "POST", path: "/v1/logs", body: b, contentType: ct,
			headers: map[string]string{"X-Axiom-Dataset": ds}}); r.status != 200 {
			t.Fatalf("%s export: %d %s", ds, r.status, r.body)
		}
		var res tabular
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
			"apl": "['" + ds + "'] | project trace_id, span_id, body"}}, 200).json(t, &res)
		c := res.Tables[0].Columns
		if len(c) != 3 || len(c[0]) != 1 || c[0][0] != jsTraceID || c[1][0] != jsSpanID || c[2][0] != "cart loaded" {
			t.Errorf("%s: log record %v", ds, c)
		}
	}
}

// otlpJSON marshals m as an OTLP/JSON sender does: protojson, with the
// trace and span ids in hex rather than protojson's base64.
func otlpJSON(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := protojson.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				s, ok := x.(string)
				if ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					raw, err := base64.StdEncoding.DecodeString(s)
					if err != nil {
						t.Fatal(err)
					}
					v[k] = hex.EncodeToString(raw)
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	out, _ := json.Marshal(v)
	return out
}
