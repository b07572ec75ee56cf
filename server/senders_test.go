package server

import (
	"slices"
	"testing"
)

// The log shippers README says work against aplite unchanged, each pinned
// to the request it sends as its own documentation and source describe
// it. No shipper installs here (neither Vector nor Fluent Bit is a Debian
// package), so each test replays that request byte for byte: the path,
// headers, content type, compression and body shape. When a shipper
// changes its request, its row here is the one to update.

// senderAnswer is the part of the ingest status a shipper reads.
type senderAnswer struct {
	Ingested int `json:"ingested"`
	Failed   int `json:"failed"`
}

// Vector's `axiom` sink (vector.dev/docs/reference/configuration/sinks/
// axiom; src/sinks/axiom/config.rs) wraps its http sink: POST, bearer
// token, X-Axiom-Org-Id only when org_id is set ("only required when
// using personal tokens"), compression zstd by default, and the json
// codec with newline-delimited framing, which the http sink sends as
// Content-Type application/x-ndjson, events minified and separated by
// "\n" (no trailing newline). A `url` without a path posts to
// /v1/datasets/{dataset}/ingest; a `region` (Axiom's vector.mdx) to
// https://{region}/v1/ingest/{dataset}. Log events carry message,
// timestamp, host and source_type; metric events name, kind, tags and a
// value object.
func TestSenderVectorAxiomSink(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("vector")
	apiToken := ts.newToken(map[string]any{"vector": map[string]any{"ingest": []string{"create"}}}, nil).Token
	logs := `{"host":"web-1","message":"GET /index.html 200","source_type":"file","file":"/var/log/app.log","timestamp":"2026-11-28T09:00:00.123456789Z"}` + "\n" +
		`{"host":"web-2","message":"POST /login 401","source_type":"file","file":"/var/log/app.log","timestamp":"2026-11-28T09:00:01Z"}`
	metric := `{"name":"requests_total","namespace":"app","tags":{"host":"web-1"},"timestamp":"2026-11-28T09:00:02Z","kind":"incremental","counter":{"value":3.0}}`
	cases := []struct {
		name, path, token, org, body string
		n                            int
	}{
		// url = "http://aplite:8080", an API token, no org_id.
		{"url, API token", "/v1/datasets/vector/ingest", apiToken, "", logs, 2},
		// region = "aplite:8080" with a personal token and org_id.
		{"region, personal token and org_id", "/v1/ingest/vector", ts.token, ts.org, logs, 2},
		{"metric events", "/v1/datasets/vector/ingest", apiToken, "", metric, 1},
	}
	total := 0
	for _, c := range cases {
		r := req{method: "POST", path: c.path, token: c.token, org: c.org, noOrg: c.org == "",
			contentType: "application/x-ndjson", encoding: "zstd", body: c.body,
			headers: map[string]string{"User-Agent": "Vector/0.51.0 (x86_64-unknown-linux-gnu)"}}
		var a senderAnswer
		ts.must(r, 200).json(t, &a)
		if a.Ingested != c.n || a.Failed != 0 {
			t.Fatalf("%s: ingested %d failed %d, want %d and 0", c.name, a.Ingested, a.Failed, c.n)
		}
		total += c.n
	}
	if n := ts.count("vector"); n != total {
		t.Fatalf("stored %d events, want %d", n, total)
	}
	got := ts.rowsOf("['vector'] | where source_type == 'file'", "host", "message")
	want := []string{"host=web-1,message=GET /index.html 200", "host=web-1,message=GET /index.html 200",
		"host=web-2,message=POST /login 401", "host=web-2,message=POST /login 401"}
	if !slices.Equal(got, want) {
		t.Errorf("log events %q, want %q", got, want)
	}
	if got := ts.rowsOf("['vector'] | where name == 'requests_total'", "counter.value", "tags.host"); !slices.Equal(got, []string{"counter.value=3,tags.host=web-1"}) {
		t.Errorf("metric event %q", got)
	}
}

// Fluent Bit's `http` output (docs.fluentbit.io/manual/pipeline/outputs/
// http; plugins/out_http/http.c) posts to its URI with the configured
// headers, User-Agent Fluent-Bit, Content-Encoding gzip when Compress is
// gzip, and Content-Type application/json for Format json (one JSON
// array) or application/x-ndjson for json_lines (one object per line,
// each ending in "\n"). Each record holds its time under json_date_key
// ("date" by default) as json_date_format says: double (epoch seconds
// with a fraction, the default) or iso8601 ("2006-01-02T15:04:05.000000Z").
// Axiom's fluent-bit.mdx configures Format json, Compress gzip,
// JSON_Date_Key _time, JSON_Date_Format iso8601 and URI /v1/ingest/{dataset}.
func TestSenderFluentBitHTTPOutput(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("fluentbit")
	token := ts.newToken(map[string]any{"fluentbit": map[string]any{"ingest": []string{"create"}}}, nil).Token
	cases := []struct {
		name, contentType, body string
		n                       int
	}{
		// Axiom's page: Format json, JSON_Date_Key _time, JSON_Date_Format iso8601.
		{"json, _time iso8601", "application/json",
			`[{"_time":"2026-11-28T09:00:00.250000Z","log":"first","stream":"stdout"},{"_time":"2026-11-28T09:00:01.500000Z","log":"second","stream":"stderr"}]`, 2},
		// Format json_lines with the defaults: key date, format double.
		{"json_lines, date double", "application/x-ndjson",
			`{"date":1795856402.75,"log":"third","stream":"stdout"}` + "\n" + `{"date":1795856403.0,"log":"fourth","stream":"stdout"}` + "\n", 2},
	}
	for _, c := range cases {
		r := req{method: "POST", path: "/v1/ingest/fluentbit", token: token, noOrg: true,
			contentType: c.contentType, encoding: "gzip", body: c.body, headers: map[string]string{"User-Agent": "Fluent-Bit"}}
		var a senderAnswer
		ts.must(r, 200).json(t, &a)
		if a.Ingested != c.n || a.Failed != 0 {
			t.Fatalf("%s: ingested %d failed %d, want %d and 0", c.name, a.Ingested, a.Failed, c.n)
		}
	}
	got := ts.rowsOf("['fluentbit'] | where _time between (datetime(2026-11-28T09:00:00Z) .. datetime(2026-11-28T09:00:02Z))", "log", "stream")
	if want := []string{"log=first,stream=stdout", "log=second,stream=stderr"}; !slices.Equal(got, want) {
		t.Errorf("the iso8601 _time was not the event time: %q, want %q", got, want)
	}
	got = ts.rowsOf("['fluentbit'] | where isnotnull(date)", "log", "date")
	if want := []string{"log=fourth,date=1.795856403e+09", "log=third,date=1.79585640275e+09"}; !slices.Equal(got, want) {
		t.Errorf("json_lines records %q, want %q", got, want)
	}
	if n := ts.count("fluentbit"); n != 4 {
		t.Errorf("stored %d events, want 4", n)
	}
}
