package server

import (
	"fmt"
	"testing"

	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// testdata/otlp-js-custom-*.json were captured as the other otlp-js
// fixtures (otlp_json_test.go), from a span and a log record carrying
// semantic-convention attributes (http.method, http.response.status_code,
// user_agent.original, code.function) and others (custom.user,
// cart.items, feature.flags, order.total, and http.host, which the
// conventions dropped).

// asProto re-encodes an OTLP/JSON fixture as protobuf (its ids are read
// as base64, which does not matter to its attributes).
func asProto(t *testing.T, js []byte, m proto.Message) []byte {
	t.Helper()
	if err := protojson.Unmarshal(js, m); err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Attributes outside the semantic conventions land in the
// attributes.custom map field, as Axiom's (map-fields.mdx), and are
// queried as ['attributes.custom']['custom.user']; the conventions'
// attributes stay fields of their own. Spans and log records alike, in
// JSON and protobuf.
func TestOTLPCustomAttributes(t *testing.T) {
	ts := newTestServer(t)
	traces, logs := readFixture(t, "otlp-js-custom-traces.json"), readFixture(t, "otlp-js-custom-logs.json")
	sends := []struct {
		ds, path, ct string
		body         []byte
	}{
		{"tjson", "/v1/traces", "application/json", traces},
		{"tpb", "/v1/traces", "application/x-protobuf", asProto(t, traces, &tracepb.TracesData{})},
		{"ljson", "/v1/logs", "application/json", logs},
		{"lpb", "/v1/logs", "application/x-protobuf", asProto(t, logs, &logspb.LogsData{})},
	}
	for _, s := range sends {
		ts.createDataset(s.ds)
		if r := ts.do(req{method: "POST", path: s.path, body: s.body, contentType: s.ct,
			headers: map[string]string{"X-Axiom-Dataset": s.ds}}); r.status != 200 {
			t.Fatalf("%s export: %d %s", s.ds, r.status, r.body)
		}
	}
	query := func(apl string) []any {
		t.Helper()
		var res tabular
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": apl}}, 200).json(t, &res)
		c := res.Tables[0].Columns
		row := make([]any, len(c))
		for i := range c {
			if len(c[i]) != 1 {
				t.Fatalf("%s: columns %v", apl, c)
			}
			row[i] = c[i][0]
		}
		return row
	}
	for _, ds := range []string{"tjson", "tpb"} {
		got := fmt.Sprint(query("['" + ds + `'] | where ['attributes.custom']['custom.user'] == 'alice'
			| project ['attributes.http.method'], ['attributes.http.response.status_code'], ['attributes.user_agent.original'],
			  user = tostring(['attributes.custom']['custom.user']), items = toint(['attributes.custom']['cart.items']),
			  flag = tostring(['attributes.custom']['feature.flags'][1]), host = tostring(['attributes.custom']['http.host'])`))
		if want := "[POST 201 curl/8.5.0 alice 3 dark-mode shop.example]"; got != want {
			t.Errorf("%s: %s, want %s", ds, got, want)
		}
		// No flat field for a custom attribute.
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
			"apl": "['" + ds + "'] | project ['attributes.custom.user']"}}, 400)
	}
	for _, ds := range []string{"ljson", "lpb"} {
		got := fmt.Sprint(query("['" + ds + `'] | project ['attributes.code.function'],
			user = tostring(['attributes.custom']['custom.user']), total = todouble(['attributes.custom']['order.total']), body`))
		if want := "[checkout alice 42.5 checkout done]"; got != want {
			t.Errorf("%s: %s, want %s", ds, got, want)
		}
	}
}
