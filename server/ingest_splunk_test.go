package server

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aplite/aplite/server/meta"
)

// hec posts body to a HEC path with the Authorization header given
// verbatim ("" for none), as HEC clients send it: no org header.
func (ts *testServer) hec(path, auth, body string, extra ...string) resp {
	ts.t.Helper()
	h := map[string]string{}
	if auth != "" {
		h["Authorization"] = auth
	}
	r := req{method: "POST", path: path, token: "-", noOrg: true, body: body, headers: h}
	for i := 0; i+1 < len(extra); i += 2 {
		switch extra[i] {
		case "encoding":
			r.encoding = extra[i+1]
		case "content-type":
			r.contentType = extra[i+1]
		default:
			h[extra[i]] = extra[i+1]
		}
	}
	return ts.do(r)
}

// hecAnswer is HEC's body.
type hecAnswer struct {
	Text         string `json:"text"`
	Code         int    `json:"code"`
	InvalidEvent *int   `json:"invalid-event-number"`
	Detail       string `json:"detail"`
}

// wantHEC fails unless r has the status and HEC code, and a detail
// containing substr.
func wantHEC(t *testing.T, what string, r resp, status, code int, substr string) hecAnswer {
	t.Helper()
	var a hecAnswer
	if err := json.Unmarshal(r.body, &a); err != nil {
		t.Fatalf("%s: %d %s: %v", what, r.status, r.body, err)
	}
	if r.status != status || a.Code != code || a.Text != hecTexts[code] || !strings.Contains(a.Detail, substr) {
		t.Fatalf("%s: %d %s, want %d with code %d (%q) and detail containing %q", what, r.status, r.body, status, code, hecTexts[code], substr)
	}
	return a
}

func ingestOn(datasets ...string) map[string]any {
	m := map[string]any{}
	for _, d := range datasets {
		m[d] = map[string]any{"ingest": []string{"create"}}
	}
	return m
}

func basic(token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("x:"+token))
}

// Splunk's documented requests, each in one of the three schemes and on
// one of the paths, are stored as Axiom's page says. The bodies are from
// help.splunk.com: "Format events for HTTP Event Collector" (the event
// metadata example, less its "// epoch time" comment, and the fields
// example) and "HTTP Event Collector examples" (the batch of ponies and
// the raw "1, 2, 3... Hello, world!").
func TestHECSplunkExamples(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("main")
	tok := ts.newToken(ingestOn("main"), nil).Token

	ok := func(what string, r resp) {
		t.Helper()
		if r.status != 200 || string(r.body) != `{"text":"Success","code":0}` {
			t.Fatalf("%s: %d %s", what, r.status, r.body)
		}
	}
	// The dataset from the envelope's index.
	ok("metadata example", ts.hec("/services/collector/event", "Splunk "+tok, `{
    "time": 1426279439,
    "host": "localhost",
    "source": "random-data-generator",
    "sourcetype": "my_sample_data",
    "index": "main",
    "event": "Hello world!"
}`))
	// The token's only dataset; the bare path is the event endpoint.
	ok("batch example", ts.hec("/services/collector", "Bearer "+tok,
		`{"event": "Pony 1 has left the barn"}{"event": "Pony 2 has left the barn"}{"event": "Pony 3 has left the barn", "nested": {"key1": "value1"}}`))
	// Basic x:TOKEN, gzip, the /1.0 path, the index query parameter.
	ok("fields example", ts.hec("/services/collector/event/1.0?index=main", basic(tok),
		`{"time": 1437522387, "host": "dataserver992.example.com", "source": "testapp", "event": { "message": "Something happened", "severity": "INFO" }, "fields": {"region": "us-west-1", "datacenter": "us-west-1a", "rack": "63"}}`,
		"encoding", "gzip"))
	ok("raw example", ts.hec("/services/collector/raw?index=main&host=myhost&sourcetype=mysourcetype&source=mysource", "Splunk "+tok,
		"1, 2, 3... Hello, world!\nanother raw log line\n", "content-type", "text/plain"))

	got := ts.rowsOf("['main'] | project _raw, host, source, sourcetype, index, message, severity, region, rack, ['nested.key1']",
		"_raw", "message", "host", "source", "sourcetype", "index", "region", "rack", "severity", "nested.key1")
	want := []string{
		"_raw=1, 2, 3... Hello, world!,host=myhost,source=mysource,sourcetype=mysourcetype",
		"_raw=Hello world!,host=localhost,source=random-data-generator,sourcetype=my_sample_data,index=main",
		"_raw=Pony 1 has left the barn",
		"_raw=Pony 2 has left the barn",
		"_raw=Pony 3 has left the barn,nested.key1=value1",
		"_raw=another raw log line,host=myhost,source=mysource,sourcetype=mysourcetype",
		"message=Something happened,host=dataserver992.example.com,source=testapp,region=us-west-1,rack=63,severity=INFO",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("stored rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// time, in epoch seconds, became _time.
	times := ts.rowsOf("['main'] | where _time == datetime(2015-03-13T20:43:59Z) or _time == datetime(2015-07-21T23:46:27Z) | project host", "host")
	if want := []string{"host=dataserver992.example.com", "host=localhost"}; !slices.Equal(times, want) {
		t.Errorf("events at the envelopes' times: %v, want %v", times, want)
	}
}

// The health check needs no token, on both paths.
func TestHECHealth(t *testing.T) {
	ts := newTestServer(t)
	for _, p := range []string{"/services/collector/health", "/services/collector/health/1.0"} {
		r := ts.do(req{method: "GET", path: p, token: "-", noOrg: true})
		if r.status != 200 || string(r.body) != `{"text":"HEC is healthy","code":17}` {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
		}
	}
}

// A token missing or in an unknown scheme is 401 (codes 2 and 3); a
// token aplite does not know, or an expired one, 403 code 4; nothing is
// stored.
func TestHECAuth(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	tok := ts.newToken(ingestOn("logs"), nil).Token
	body := `{"event":"x"}`
	p := "/services/collector/event?index=logs"
	wantHEC(t, "no token", ts.hec(p, "", body), 401, hecTokenRequired, "Authorization: Splunk TOKEN")
	wantHEC(t, "unknown scheme", ts.hec(p, "Token "+tok, body), 401, hecInvalidAuth, "")
	wantHEC(t, "scheme alone", ts.hec(p, "Splunk", body), 401, hecInvalidAuth, "")
	wantHEC(t, "basic without a colon", ts.hec(p, "Basic "+base64.StdEncoding.EncodeToString([]byte(tok)), body), 401, hecInvalidAuth, "")
	wantHEC(t, "basic not base64", ts.hec(p, "Basic !!!", body), 401, hecInvalidAuth, "")
	wantHEC(t, "unknown token", ts.hec(p, "Splunk xaat-00000000-0000-0000-0000-000000000000", body), 403, hecInvalidToken, "invalid token")
	wantHEC(t, "a Splunk GUID", ts.hec(p, "Splunk B5A79AAD-D822-46CC-80D1-819F80D7BFB0", body), 403, hecInvalidToken, "malformed token")
	wantHEC(t, "raw, no token", ts.hec("/services/collector/raw?index=logs", "", "line"), 401, hecTokenRequired, "")
	if n := ts.count("logs"); n != 0 {
		t.Fatalf("%d events stored by refused requests", n)
	}
	// The admin's personal token works when it names its org.
	r := ts.hec(p, "Splunk "+ts.token, body, "X-Axiom-Org-Id", ts.org)
	if r.status != 200 {
		t.Fatalf("personal token: %d %s", r.status, r.body)
	}
}

// The dataset is the index query parameter, else the first envelope's
// index, else the token's one dataset; a token may send only where it
// may ingest.
func TestHECIndex(t *testing.T) {
	ts := newTestServer(t)
	for _, d := range []string{"a", "b", "c"} {
		ts.createDataset(d)
	}
	onlyA := ts.newToken(ingestOn("a"), nil).Token
	aAndB := ts.newToken(ingestOn("a", "b"), nil).Token
	wild := ts.newToken(ingestOn("*"), nil).Token
	const ev = "/services/collector/event"

	for _, tc := range []struct {
		what, tok, query, body string
		want                   string // dataset that gets the event
	}{
		{"query over envelope", aAndB, "?index=b", `{"event":"1","index":"a"}`, "b"},
		{"first envelope's index", aAndB, "", `{"event":"2","index":"b"}{"event":"3","index":"a"}`, "b"},
		{"token's one dataset", onlyA, "", `{"event":"4"}`, "a"},
		{"wildcard token with an index", wild, "?index=c", `{"event":"5"}`, "c"},
	} {
		if r := ts.hec(ev+tc.query, "Splunk "+tc.tok, tc.body); r.status != 200 {
			t.Fatalf("%s: %d %s", tc.what, r.status, r.body)
		}
	}
	if ts.count("a") != 1 || ts.count("b") != 3 || ts.count("c") != 1 {
		t.Fatalf("counts a=%d b=%d c=%d, want 1, 3, 1", ts.count("a"), ts.count("b"), ts.count("c"))
	}
	if rows := ts.rowsOf("['b'] | project _raw, index", "_raw", "index"); !slices.Equal(rows, []string{"_raw=1,index=a", "_raw=2,index=b", "_raw=3,index=a"}) {
		t.Errorf("dataset b: %v", rows)
	}

	wantHEC(t, "two datasets, no index", ts.hec(ev, "Splunk "+aAndB, `{"event":"x"}`), 400, hecIncorrectIdx, "?index=DATASET")
	wantHEC(t, "wildcard, no index", ts.hec(ev, "Splunk "+wild, `{"event":"x"}`), 400, hecIncorrectIdx, "no dataset")
	wantHEC(t, "another dataset", ts.hec(ev+"?index=b", "Splunk "+onlyA, `{"event":"x"}`), 403, hecIncorrectIdx, `not allowed to ingest into dataset "b"`)
	wantHEC(t, "envelope names another", ts.hec(ev, "Splunk "+onlyA, `{"event":"x","index":"c"}`), 403, hecIncorrectIdx, `dataset "c"`)
	wantHEC(t, "raw to another", ts.hec("/services/collector/raw?index=b", "Splunk "+onlyA, "x", "content-type", "text/plain"), 403, hecIncorrectIdx, `dataset "b"`)
	wantHEC(t, "no such dataset", ts.hec(ev+"?index=nope", "Splunk "+wild, `{"event":"x"}`), 400, hecIncorrectIdx, `dataset "nope" not found`)
	if ts.count("a") != 1 || ts.count("b") != 3 || ts.count("c") != 1 {
		t.Fatalf("a refused request stored events")
	}
}

// Bodies HEC refuses whole store nothing and say which envelope and why;
// an event the decoder refuses fails alone, answered 400 naming it.
func TestHECRefusedBodies(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	tok := "Splunk " + ts.newToken(ingestOn("logs"), nil).Token
	const ev = "/services/collector/event?index=logs"
	for _, tc := range []struct {
		what, body  string
		code, event int
		detail      string
	}{
		{"no event", `{"event":"a"}{"host":"h"}`, 12, 1, `no "event"`},
		{"blank event", `{"event":""}`, 13, 0, `"event" is empty`},
		{"fields not an object", `{"event":"a","fields":["x"]}`, 15, 0, `"fields" must be an object`},
		{"broken JSON", "{\"event\":\"a\"}\n{\"event\":\"b\"", hecInvalidFormat, 1, "invalid JSON"},
		{"not JSON", `hello`, hecInvalidFormat, 0, "expected an event envelope"},
	} {
		a := wantHEC(t, tc.what, ts.hec(ev, tok, tc.body), 400, tc.code, tc.detail)
		if a.InvalidEvent == nil || *a.InvalidEvent != tc.event {
			t.Errorf("%s: invalid-event-number %v, want %d", tc.what, a.InvalidEvent, tc.event)
		}
	}
	wantHEC(t, "empty body", ts.hec(ev, tok, "  \n"), 400, hecNoData, "empty")
	wantHEC(t, "empty gzip body", ts.hec(ev, tok, "", "encoding", "gzip"), 400, hecNoData, "empty")
	wantHEC(t, "empty raw body", ts.hec("/services/collector/raw?index=logs", tok, "", "content-type", "text/plain"), 400, hecNoData, "empty")
	wantHEC(t, "raw JSON not JSON", ts.hec("/services/collector/raw?index=logs", tok, `{"a":`, "content-type", "application/json"), 400, hecInvalidFormat, "the JSON body")
	wantHEC(t, "unknown encoding", ts.hec(ev, tok, `{"event":"a"}`, "encoding", "br"), 415, hecInvalidFormat, "Content-Encoding")
	if n := ts.count("logs"); n != 0 {
		t.Fatalf("%d events stored by refused bodies", n)
	}

	// A time that does not parse fails its event; the others are stored.
	a := wantHEC(t, "bad time", ts.hec(ev, tok, `{"event":"a"}{"event":"b","time":"yesterday"}{"event":"c"}`), 400, hecInvalidFormat, "1 of 3 events were not stored")
	if a.InvalidEvent == nil || *a.InvalidEvent != 1 || !strings.Contains(a.Detail, `"yesterday"`) {
		t.Errorf("bad time: %+v", a)
	}
	if rows := ts.rowsOf("['logs'] | project _raw", "_raw"); !slices.Equal(rows, []string{"_raw=a", "_raw=c"}) {
		t.Errorf("stored %v, want a and c", rows)
	}
}

// A raw JSON body is one event: an object's members are its fields.
func TestHECRawJSON(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	tok := "Splunk " + ts.newToken(ingestOn("logs"), nil).Token
	r := ts.hec("/services/collector/raw?index=logs&host=h", tok, "{\"a\": 1,\n \"b\": {\"c\": \"d\"}}", "content-type", "application/json")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if rows := ts.rowsOf("['logs'] | project a, ['b.c'], host", "a", "b.c", "host"); !slices.Equal(rows, []string{"a=1,b.c=d,host=h"}) {
		t.Errorf("rows %v", rows)
	}
}

// HEC counts against the same limits as /v1/ingest: a HEC request takes
// the ingest window's one slot, so the next /v1/ingest is refused; a
// refused HEC request is 429 (HEC clients back off on it) with
// Retry-After and HEC's "Server is busy". The body limit applies.
func TestHECLimits(t *testing.T) {
	ts := newTestServerConfig(t, Config{MaxBodyBytes: 1 << 10})
	ts.createDataset("logs")
	tok := "Splunk " + ts.newToken(ingestOn("logs"), nil).Token
	clock := ts.driveLimits()
	ts.setLicense(func(l *meta.License) { l.IngestLimitPerSecond = 1 })
	const ev = "/services/collector/event?index=logs"
	r := ts.hec(ev, tok, `{"event":"a"}`)
	if r.status != 200 || r.header["X-Ingestlimit-Limit"] != "1" || r.header["X-Ingestlimit-Remaining"] != "0" {
		t.Fatalf("first: %d %s %v", r.status, r.body, r.header)
	}
	ts.mustErr(req{method: "POST", path: "/v1/ingest/logs", body: `[{"a":1}]`}, 430, "ingest limit exceeded")
	r = ts.hec(ev, tok, `{"event":"b"}`)
	wantHEC(t, "over the ingest limit", r, 429, hecBusy, "ingest limit exceeded")
	if r.header["Retry-After"] == "" {
		t.Errorf("no Retry-After: %v", r.header)
	}
	clock.add(2e9)
	big := `{"event":"` + strings.Repeat("x", 2000) + `"}`
	wantHEC(t, "body too large", ts.hec(ev, tok, big), 413, hecInvalidFormat, "exceeds the limit of 1024 bytes")
	wantHEC(t, "body too large once gunzipped", ts.hec(ev, tok, big, "encoding", "gzip"), 413, hecInvalidFormat, "after decompression")
	if n := ts.count("logs"); n != 1 {
		t.Fatalf("%d events stored, want 1", n)
	}
}
