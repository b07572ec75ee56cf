package server

import (
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func sampleTraces() *tracepb.TracesData {
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "frontend"), str("k8s.node.name", "n1")}},
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope: &commonpb.InstrumentationScope{Name: "otel-go"},
			Spans: []*tracepb.Span{
				{TraceId: []byte("0123456789abcdef"), SpanId: []byte("01234567"), Name: "GET /",
					Kind: tracepb.Span_SPAN_KIND_SERVER, StartTimeUnixNano: 1_700_000_000_000_000_000,
					EndTimeUnixNano: 1_700_000_000_500_000_000, Attributes: []*commonpb.KeyValue{str("http.method", "GET"),
						{Key: "http.status_code", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 200}}}},
					Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "boom"},
					Events: []*tracepb.Span_Event{{Name: "retry", TimeUnixNano: 1_700_000_000_100_000_000}}},
				{TraceId: []byte("0123456789abcdef"), SpanId: []byte("89abcdef"), ParentSpanId: []byte("01234567"),
					Name: "db", Kind: tracepb.Span_SPAN_KIND_CLIENT, StartTimeUnixNano: 1_700_000_000_100_000_000,
					EndTimeUnixNano: 1_700_000_000_200_000_000},
			},
		}},
	}}}
}

func TestOTLPTracesProtobufAndJSON(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("traces")
	pb, _ := proto.Marshal(sampleTraces())
	hdr := map[string]string{"X-Axiom-Dataset": "traces"}
	r := ts.do(req{method: "POST", path: "/v1/traces", body: pb, contentType: "application/x-protobuf", encoding: "gzip", headers: hdr})
	if r.status != 200 || r.header["Content-Type"] != "application/x-protobuf" {
		t.Fatalf("protobuf export: %d %v %s", r.status, r.header, r.body)
	}
	js := otlpJSON(t, sampleTraces())
	r = ts.must(req{method: "POST", path: "/v1/traces", body: js, contentType: "application/json", encoding: "zstd", headers: hdr}, 200)
	if string(r.body) != "{}" {
		t.Fatalf("json export answered %s", r.body)
	}
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": `['traces']
		| where isnull(parent_span_id)
		| project trace_id, span_id, name, kind, duration, ['status.code'], error, ['service.name'],
		  ['resource.k8s.node.name'], ['attributes.http.method'], ['attributes.http.status_code'], ['scope.name']`}}, 200).json(t, &res)
	tb := res.Tables[0]
	if len(tb.Columns) != 12 || len(tb.Columns[0]) != 2 {
		t.Fatalf("root spans %+v", tb)
	}
	want := []any{"30313233343536373839616263646566", "3031323334353637", "GET /", "server", "500ms", "ERROR", true,
		"frontend", "n1", "GET", float64(200), "otel-go"}
	for i, w := range want {
		if tb.Columns[i][0] != w {
			t.Errorf("%s = %v, want %v", tb.Fields[i].Name, tb.Columns[i][0], w)
		}
	}
	if tb.Fields[4].Type != "timespan" {
		t.Errorf("duration type %s", tb.Fields[4].Type)
	}
}

func TestOTLPLogsAndErrors(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	ld := &logspb.LogsData{ResourceLogs: []*logspb.ResourceLogs{{ScopeLogs: []*logspb.ScopeLogs{{LogRecords: []*logspb.LogRecord{
		{TimeUnixNano: 1_700_000_000_000_000_000, SeverityText: "WARN", SeverityNumber: logspb.SeverityNumber_SEVERITY_NUMBER_WARN,
			Body: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "disk full"}}, TraceId: []byte("0123456789abcdef")},
	}}}}}}
	pb, _ := proto.Marshal(ld)
	hdr := map[string]string{"X-Axiom-Dataset": "logs"}
	ts.do(req{method: "POST", path: "/v1/logs", body: pb, contentType: "application/x-protobuf", headers: hdr})
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
		"apl": "['logs'] | project _time, severity_text, severity_number, body"}}, 200).json(t, &res)
	c := res.Tables[0].Columns
	if len(c) != 4 || c[0][0] != "2023-11-14T22:13:20Z" || c[1][0] != "WARN" || c[2][0] != float64(13) || c[3][0] != "disk full" {
		t.Fatalf("log record %+v", c)
	}
	ts.mustErr(req{method: "POST", path: "/v1/logs", body: pb, contentType: "application/x-protobuf"}, 400, "X-Axiom-Dataset")
	ts.mustErr(req{method: "POST", path: "/v1/logs", body: pb, contentType: "application/x-protobuf",
		headers: map[string]string{"X-Axiom-Dataset": "nope"}}, 404, "nope")
	ts.mustErr(req{method: "POST", path: "/v1/logs", body: "garbage", contentType: "application/x-protobuf", headers: hdr}, 400, "invalid OTLP")
	ts.mustErr(req{method: "POST", path: "/v1/logs", body: "{", contentType: "application/json", headers: hdr}, 400, "invalid OTLP")
	ts.mustErr(req{method: "POST", path: "/v1/traces", body: pb, contentType: "text/plain", headers: hdr}, 415, "content type")
	tok := ts.newToken(map[string]any{"logs": map[string]any{"query": []string{"read"}}}, nil).Token
	ts.mustErr(req{method: "POST", path: "/v1/logs", body: pb, contentType: "application/x-protobuf", token: tok, headers: hdr}, 403, "ingest")
}
