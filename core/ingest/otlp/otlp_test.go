package otlp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// A span's duration is a timespan column and its start the event time,
// so `avg(duration)` and time filters work on traces as on the server.
func TestSpanTypes(t *testing.T) {
	td := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{
		Spans: []*tracepb.Span{{TraceId: []byte{1, 2}, SpanId: []byte{3}, Name: "GET /",
			StartTimeUnixNano: 1_700_000_000_000_000_000, EndTimeUnixNano: 1_700_000_000_250_000_000}},
	}}}}}
	body, _ := proto.Marshal(td)
	b := store.NewRowsBuilder()
	if err := Decode(body, Traces, false, 42, b); err != nil {
		t.Fatal(err)
	}
	rows := b.Finish(42)
	if rows.N != 1 {
		t.Fatalf("%d rows, want 1", rows.N)
	}
	found := map[string]bool{}
	for i, k := range rows.Keys {
		switch k.Name {
		case "duration":
			found[k.Name] = k.Type == vector.TimeSpan && rows.Cols[i].Int(0) == 250_000_000
		case "trace_id":
			found[k.Name] = rows.Cols[i].Str(0) == "0102"
		}
	}
	if rows.Time[0] != 1_700_000_000_000_000_000 {
		t.Errorf("time %d, want the span's start", rows.Time[0])
	}
	for _, name := range []string{"duration", "trace_id"} {
		if !found[name] {
			t.Errorf("%s missing or wrong in %v", name, rows.Keys)
		}
	}
}

// A body that does not parse, or an unknown signal, adds nothing.
func TestDecodeErrors(t *testing.T) {
	b := store.NewRowsBuilder()
	if err := Decode([]byte("{"), Logs, true, 0, b); err == nil {
		t.Error("bad JSON body: no error")
	}
	if err := Decode(nil, Signal(9), false, 0, b); err == nil {
		t.Error("unknown signal: no error")
	}
	if b.Len() != 0 {
		t.Errorf("%d events added", b.Len())
	}
}

// OTLP/JSON ids are hex (the JavaScript exporter's form); an id a sender
// wrote in base64 instead keeps its bytes, and a bytes attribute, which
// OTLP/JSON does write in base64, is not reread.
func TestJSONIDs(t *testing.T) {
	body := `{"resourceSpans":[{"scopeSpans":[{"spans":[
		{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"32c782f837b78df4","parentSpanId":"eee19b7ec3c1b174","name":"hex"},
		{"traceId":"W47/95gDgQPSabYzgT/GDA==","spanId":"MseC+De3jfQ=","name":"base64",
		 "attributes":[{"key":"db.statement","value":{"bytesValue":"MDEyMzQ1Njc4OWFi"}}]}]}]}]}`
	b := store.NewRowsBuilder()
	if err := Decode([]byte(body), Traces, true, 42, b); err != nil {
		t.Fatal(err)
	}
	rows := b.Finish(42)
	got := map[string][]string{}
	for i, k := range rows.Keys {
		for r := 0; r < rows.N; r++ {
			if !rows.Cols[i].IsNull(r) && k.Type == vector.String {
				got[k.Name] = append(got[k.Name], rows.Cols[i].Str(r))
			}
		}
	}
	want := map[string][]string{
		"trace_id":                {"5b8efff798038103d269b633813fc60c", "5b8efff798038103d269b633813fc60c"},
		"span_id":                 {"32c782f837b78df4", "32c782f837b78df4"},
		"parent_span_id":          {"eee19b7ec3c1b174"},
		"attributes.db.statement": {"303132333435363738396162"},
	}
	for k, w := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(w) {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
}

// A span's attributes the semantic conventions define (template ones
// such as http.request.header.<key> too) are fields of their own; the
// others, under their full names, are the attributes.custom map.
func TestCustomAttributes(t *testing.T) {
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	td := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{
		Spans: []*tracepb.Span{{Name: "GET /", Attributes: []*commonpb.KeyValue{str("http.method", "GET"),
			str("http.request.header.x-id", "7"), str("url.path", "/"), str("custom.user", "alice"), str("http.request.header.", "?")}}},
	}}}}}
	body, _ := proto.Marshal(td)
	b := store.NewRowsBuilder()
	if err := Decode(body, Traces, false, 42, b); err != nil {
		t.Fatal(err)
	}
	rows := b.Finish(42)
	var names []string
	for _, k := range rows.Keys {
		if strings.HasPrefix(k.Name, "attributes.") {
			names = append(names, k.Name)
		}
	}
	slices.Sort(names)
	want := "attributes.custom attributes.http.method attributes.http.request.header.x-id attributes.url.path"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("fields %s, want %s", got, want)
	}
}
