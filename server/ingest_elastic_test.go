package server

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/aplite/aplite/server/meta"
)

// bulkAnswer is Elasticsearch's bulk response as shippers read it.
type bulkAnswer struct {
	Took   int64                       `json:"took"`
	Errors bool                        `json:"errors"`
	Items  []map[string]bulkAnswerItem `json:"items"`
}

type bulkAnswerItem struct {
	Index  string `json:"_index"`
	ID     string `json:"_id"`
	Status int    `json:"status"`
	Result string `json:"result"`
	Error  *struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"error"`
}

// one returns the item's action and body, failing unless it has exactly one.
func (a bulkAnswer) one(t *testing.T, i int) (string, bulkAnswerItem) {
	t.Helper()
	if len(a.Items[i]) != 1 {
		t.Fatalf("item %d has %d actions: %v", i, len(a.Items[i]), a.Items[i])
	}
	for op, it := range a.Items[i] {
		return op, it
	}
	panic("unreachable")
}

// bulk posts body to the dataset's _bulk and decodes the answer.
func (ts *testServer) bulk(t *testing.T, dataset, body string, r req) bulkAnswer {
	t.Helper()
	r.method, r.path, r.body = "POST", "/v1/ingest/"+dataset+"/elastic/_bulk", body
	if r.contentType == "" {
		r.contentType = "application/x-ndjson"
	}
	var a bulkAnswer
	ts.must(r, 200).json(t, &a)
	return a
}

// aplRows runs an APL query and returns its columns.
func (ts *testServer) aplColumns(t *testing.T, apl string) [][]any {
	t.Helper()
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": apl,
		"startTime": "2000-01-01T00:00:00Z", "endTime": "2100-01-01T00:00:00Z"}}, 200).json(t, &res)
	return res.Tables[0].Columns
}

// The example of Axiom's Elasticsearch Bulk API page, sent as its Go
// program sends it: both documents stored with @timestamp as _time, and
// Elasticsearch's answer with a 201 per item.
func TestElasticBulkDocsExample(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	body := `{"index": {"_index": "myindex", "_id": "1"}}
{"@timestamp": "2023-06-06T12:00:00Z", "message": "axiom elastic bulk", "severity": "INFO"}
{"index": {"_index": "myindex", "_id": "2"}}
{"@timestamp": "2023-06-06T12:00:01Z", "message": "axiom elastic bulk api", "severity": "ERROR"}
`
	a := ts.bulk(t, "logs", body, req{})
	if a.Errors || len(a.Items) != 2 {
		t.Fatalf("answer %+v", a)
	}
	for i, id := range []string{"1", "2"} {
		op, it := a.one(t, i)
		if op != "index" || it.Status != 201 || it.Index != "myindex" || it.ID != id || it.Result != "created" || it.Error != nil {
			t.Errorf("item %d: %s %+v", i, op, it)
		}
	}
	cols := ts.aplColumns(t, "['logs'] | sort by _time asc | project _time, message, severity, ['@timestamp']")
	if len(cols[0]) != 2 || cols[0][0] != "2023-06-06T12:00:00Z" || cols[0][1] != "2023-06-06T12:00:01Z" {
		t.Fatalf("_time %v, want the two @timestamps", cols[0])
	}
	if cols[1][1] != "axiom elastic bulk api" || cols[2][0] != "INFO" || cols[3][0] != "2023-06-06T12:00:00Z" {
		t.Errorf("columns %v", cols)
	}
}

// The credentials Elasticsearch shippers send are the API token: Basic
// auth with it as password (Logstash, Fluentd, Fluent Bit, syslog-ng), an
// ApiKey "axiom:TOKEN" (Beats), or a Bearer token. A token for another
// dataset, no token, or a dataset that does not exist fail before the
// body is read, as on /v1/ingest.
func TestElasticBulkAuth(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	ts.createDataset("other")
	tok := ts.newToken(map[string]any{"logs": map[string]any{"ingest": []string{"create"}}}, nil).Token
	doc := `{"create":{}}` + "\n" + `{"n":1}` + "\n"
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, h := range []string{"Basic " + b64("axiom:"+tok), "ApiKey " + b64("axiom:"+tok), "Bearer " + tok} {
		a := ts.bulk(t, "logs", doc, req{token: "-", noOrg: true, headers: map[string]string{"Authorization": h}})
		if _, it := a.one(t, 0); a.Errors || it.Status != 201 {
			t.Errorf("%s: %+v", h, a)
		}
	}
	if got := ts.aplColumns(t, "['logs'] | count"); got[0][0] != float64(3) {
		t.Errorf("count %v, want 3", got)
	}
	path := "/v1/ingest/other/elastic/_bulk"
	ts.mustErr(req{method: "POST", path: path, body: doc, token: tok, noOrg: true}, 403, `not allowed to ingest into dataset "other"`)
	ts.mustErr(req{method: "POST", path: "/v1/ingest/logs/elastic/_bulk", body: doc, token: "-", noOrg: true,
		headers: map[string]string{"Authorization": "Basic " + b64("axiom:not-a-token")}}, 403, "malformed token")
	ts.mustErr(req{method: "POST", path: "/v1/ingest/logs/elastic/_bulk", body: doc, token: "-", noOrg: true}, 403, "Authorization")
	ts.mustErr(req{method: "POST", path: "/v1/ingest/nope/elastic/_bulk", body: doc}, 404, `dataset "nope" not found`)
	ts.mustErr(req{method: "GET", path: "/v1/ingest/other/elastic/", token: tok, noOrg: true}, 403, "ingest into")
	if got := ts.aplColumns(t, "['other'] | count"); got[0][0] != float64(0) {
		t.Errorf("other holds %v events, want 0", got)
	}
}

// Each item answers for itself: a bad document, an update and a delete
// fail alone with 400 naming the line, the rest are stored, and errors is
// true so the shipper looks at the items. Items without _id get one, and
// an index in the path is the default _index.
func TestElasticBulkItemErrors(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	body := strings.Join([]string{
		`{"index":{}}`, `{"n":1}`,
		`{"index":{"_index":"x"}}`, `{"n":2,`,
		`{"update":{"_id":"u"}}`, `{"doc":{"n":3}}`,
		`{"delete":{"_id":"d"}}`,
		`{"create":{"_id":"c"}}`, `{"n":4,"@timestamp":true}`,
		`{"create":{}}`, `{"n":5}`,
	}, "\n") + "\n"
	var a bulkAnswer
	ts.must(req{method: "POST", path: "/v1/ingest/logs/elastic/web-1/_bulk", body: body, contentType: "application/json"}, 200).json(t, &a)
	want := []struct {
		op, index string
		status    int
		errType   string
		reason    string
	}{
		{"index", "web-1", 201, "", ""},
		{"index", "x", 400, "mapper_parsing_exception", "line 4: invalid JSON"},
		{"update", "web-1", 400, "illegal_argument_exception", "line 6: update is not supported"},
		{"delete", "web-1", 400, "illegal_argument_exception", "line 7: delete is not supported"},
		{"create", "web-1", 400, "mapper_parsing_exception", "line 9: cannot use @timestamp value true as a time"},
		{"create", "web-1", 201, "", ""},
	}
	if !a.Errors || len(a.Items) != len(want) {
		t.Fatalf("answer %+v", a)
	}
	ids := map[string]bool{}
	for i, w := range want {
		op, it := a.one(t, i)
		if op != w.op || it.Index != w.index || it.Status != w.status || it.ID == "" {
			t.Errorf("item %d: %s %+v, want %s %s %d", i, op, it, w.op, w.index, w.status)
		}
		ids[it.ID] = true
		if w.errType == "" {
			if it.Error != nil {
				t.Errorf("item %d: error %+v", i, it.Error)
			}
			continue
		}
		if it.Error == nil || it.Error.Type != w.errType || !strings.HasPrefix(it.Error.Reason, w.reason) {
			t.Errorf("item %d: error %+v, want %s %q", i, it.Error, w.errType, w.reason)
		}
	}
	if len(ids) != len(want) {
		t.Errorf("ids %v are not unique", ids)
	}
	cols := ts.aplColumns(t, "['logs'] | summarize make_set(n)")
	if got := cols[0][0].([]any); len(got) != 2 || !(got[0] == float64(1) && got[1] == float64(5) || got[0] == float64(5) && got[1] == float64(1)) {
		t.Errorf("stored n %v, want 1 and 5", got)
	}
}

// The field cap refuses a document as on /v1/ingest, and its item says
// so with 400 while the documents before and after it are 201.
func TestElasticBulkFieldCap(t *testing.T) {
	ts := newTestServer(t)
	ts.setLicense(func(l *meta.License) { l.MaxFields = 3 })
	ts.createDataset("wide")
	body := `{"index":{}}` + "\n" + `{"a":1}` + "\n" +
		`{"index":{}}` + "\n" + `{"b":1,"c":2,"d":3}` + "\n" +
		`{"index":{}}` + "\n" + `"not an object"` + "\n" +
		`{"index":{}}` + "\n" + `{"a":2,"b":3}` + "\n"
	a := ts.bulk(t, "wide", body, req{})
	statuses := []int{201, 400, 400, 201}
	for i, st := range statuses {
		_, it := a.one(t, i)
		if it.Status != st {
			t.Errorf("item %d status %d, want %d: %+v", i, it.Status, st, it)
		}
	}
	if _, it := a.one(t, 1); it.Error == nil || it.Error.Type != "illegal_argument_exception" || !strings.Contains(it.Error.Reason, "limit of 3 fields") {
		t.Errorf("refused item's error %+v", it.Error)
	}
	if _, it := a.one(t, 2); it.Error == nil || !strings.Contains(it.Error.Reason, "line 6: not a JSON object") {
		t.Errorf("bad item's error %+v", it.Error)
	}
	if got := ts.aplColumns(t, "['wide'] | count"); got[0][0] != float64(2) {
		t.Errorf("count %v, want 2", got)
	}
}

// A body that cannot be read as bulk actions is refused whole with 400
// naming the line and column, storing nothing, as Elasticsearch refuses
// it; so is an empty body.
func TestElasticBulkMalformed(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	path := "/v1/ingest/logs/elastic/_bulk"
	ts.mustErr(req{method: "POST", path: path, body: `{"index":{}}` + "\n" + `{"n":1}` + "\n" + `{"upsert":{}}` + "\n{}\n"},
		400, `invalid bulk body: line 3, column 2 (byte 22): malformed action line: unknown action "upsert"`)
	ts.mustErr(req{method: "POST", path: path, body: `{"index":{}}` + "\n" + `{"n":1}` + "\n" + `{"index":{}}`},
		400, "line 3, column 13 (byte 33): the index action has no document on the next line")
	ts.mustErr(req{method: "POST", path: path, body: "\n \n"}, 400, "request body is required")
	if got := ts.aplColumns(t, "['logs'] | count"); got[0][0] != float64(0) {
		t.Errorf("count %v, want 0", got)
	}
}

// Over the org's ingest limit a bulk request is 429, which every
// Elasticsearch shipper retries after a pause, with the limit headers,
// and nothing of it is stored.
func TestElasticBulkRateLimit(t *testing.T) {
	ts := newTestServer(t)
	ts.driveLimits()
	ts.setLicense(func(l *meta.License) { l.IngestLimitPerSecond = 1 })
	ts.createDataset("logs")
	doc := `{"index":{}}` + "\n" + `{"n":1}` + "\n"
	got := ts.must(req{method: "POST", path: "/v1/ingest/logs/elastic/_bulk", body: doc}, 200)
	if got.header["X-Ingestlimit-Limit"] != "1" {
		t.Errorf("limit headers %v", got.header)
	}
	ts.mustErr(req{method: "POST", path: "/v1/ingest/logs/elastic/_bulk", body: doc}, 429, "ingest limit exceeded")
	if got := ts.aplColumns(t, "['logs'] | count"); got[0][0] != float64(1) {
		t.Errorf("count %v, want 1", got)
	}
}

// The probes shippers make before sending: the version (7.17, Beats'
// allow_older_versions as Axiom's page says), the product header, the
// license, cluster health, and templates, ILM policies and pipelines,
// which are never there and whose install is acknowledged.
func TestElasticProbes(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("logs")
	for _, p := range []string{"/v1/ingest/logs/elastic", "/v1/ingest/logs/elastic/"} {
		got := ts.must(req{method: "GET", path: p}, 200)
		var v struct {
			Version struct{ Number, BuildFlavor string } `json:"version"`
			Tagline string                               `json:"tagline"`
		}
		got.json(t, &v)
		if v.Version.Number != "7.17.0" || v.Tagline != "You Know, for Search" || got.header["X-Elastic-Product"] != "Elasticsearch" {
			t.Errorf("GET %s: %s %v", p, got.body, got.header)
		}
		ts.must(req{method: "HEAD", path: p}, 200)
	}
	var lic struct{ License struct{ Status, Type string } }
	ts.must(req{method: "GET", path: "/v1/ingest/logs/elastic/_license?human=false"}, 200).json(t, &lic)
	if lic.License.Status != "active" {
		t.Errorf("license %+v", lic)
	}
	var health struct{ Status string }
	ts.must(req{method: "GET", path: "/v1/ingest/logs/elastic/_cluster/health"}, 200).json(t, &health)
	if health.Status != "green" {
		t.Errorf("health %+v", health)
	}
	for _, p := range []string{"_template/filebeat-7.17.0", "_index_template/logstash", "_ilm/policy/filebeat", "_ingest/pipeline/p"} {
		got := ts.must(req{method: "GET", path: "/v1/ingest/logs/elastic/" + p}, 404)
		if !strings.Contains(string(got.body), "resource_not_found_exception") {
			t.Errorf("GET %s: %s", p, got.body)
		}
		ts.must(req{method: "HEAD", path: "/v1/ingest/logs/elastic/" + p}, 404)
		if got := ts.must(req{method: "PUT", path: "/v1/ingest/logs/elastic/" + p, body: `{"index_patterns":["x-*"]}`}, 200); string(got.body) != `{"acknowledged":true}` {
			t.Errorf("PUT %s: %s", p, got.body)
		}
	}
	ts.mustErr(req{method: "GET", path: "/v1/ingest/logs/elastic/", token: "-", noOrg: true}, 403, "Authorization")
}

// Request shapes recorded from Elasticsearch shippers, as each sends them
// with the settings Axiom's pages give: Fluent Bit's es output (Path set
// to the door, HTTP_User/HTTP_Passwd, Compress gzip, application/x-ndjson;
// the create action with _type "_doc", or without it under
// Suppress_Type_Name On), and Logstash's elasticsearch output (an index
// action naming its daily index, application/json, spaces after colons).
func TestElasticBulkShipperShapes(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("k8s")
	tok := ts.newToken(map[string]any{"k8s": map[string]any{"ingest": []string{"create"}}}, nil).Token
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("axiom:"+tok))
	fluentBit := `{"create":{"_index":"fluent-bit","_type":"_doc"}}
{"@timestamp":"2024-01-07T12:00:00.000Z","log":"GET /healthz 200","stream":"stdout","kubernetes":{"pod_name":"web-1","namespace_name":"prod"}}
{"create":{"_index":"fluent-bit","_type":"_doc"}}
{"@timestamp":"2024-01-07T12:00:01.000Z","log":"GET /api 500","stream":"stderr","kubernetes":{"pod_name":"web-2","namespace_name":"prod"}}
`
	suppressed := strings.ReplaceAll(fluentBit, `,"_type":"_doc"`, "")
	logstash := `{"index":{"_index":"logstash-2024.01.07"}}
{"@timestamp":"2024-01-07T12:00:02.000Z","@version":"1","message":"Sun Jan  7 12:00:02 UTC 2024","host":{"name":"ls-1"}}
`
	for _, c := range []struct {
		name, body, ct, enc string
		items               int
	}{
		{"fluent-bit", fluentBit, "application/x-ndjson", "gzip", 2},
		{"fluent-bit Suppress_Type_Name", suppressed, "application/x-ndjson", "gzip", 2},
		{"logstash", logstash, "application/json", "", 1},
	} {
		a := ts.bulk(t, "k8s", c.body, req{token: "-", noOrg: true, contentType: c.ct, encoding: c.enc,
			headers: map[string]string{"Authorization": basic}})
		if a.Errors || len(a.Items) != c.items {
			t.Fatalf("%s: %+v", c.name, a)
		}
		for i := range a.Items {
			if op, it := a.one(t, i); it.Status != 201 || (c.name != "logstash") != (op == "create") {
				t.Errorf("%s item %d: %s %+v", c.name, i, op, it)
			}
		}
	}
	cols := ts.aplColumns(t, "['k8s'] | where stream == 'stderr' | summarize count(), make_set(['kubernetes.pod_name']), min(_time)")
	if cols[0][0] != float64(2) || cols[1][0].([]any)[0] != "web-2" || cols[2][0] != "2024-01-07T12:00:01Z" {
		t.Errorf("stderr events: %v", cols)
	}
	cols = ts.aplColumns(t, "['k8s'] | where isnotempty(['@version']) | project _time, ['host.name']")
	if len(cols[0]) != 1 || cols[0][0] != "2024-01-07T12:00:02Z" || cols[1][0] != "ls-1" {
		t.Errorf("logstash event: %v", cols)
	}
}

// The body cap of /v1/ingest holds here too, after decompression: a bulk
// body past it is 413 and stores nothing, gzip or not.
func TestElasticBulkBodyLimit(t *testing.T) {
	ts := newTestServerConfig(t, Config{MaxBodyBytes: 1000})
	ts.createDataset("logs")
	body := strings.Repeat(`{"create":{}}`+"\n"+`{"message":"0123456789012345678901234567890123456789"}`+"\n", 20)
	for _, enc := range []string{"", "gzip"} {
		ts.mustErr(req{method: "POST", path: "/v1/ingest/logs/elastic/_bulk", body: body, encoding: enc}, 413, "exceeds the limit of 1000 bytes")
	}
	a := ts.bulk(t, "logs", body[:len(body)/2], req{})
	if a.Errors || len(a.Items) != 10 {
		t.Fatalf("half the body: %+v", a)
	}
	if got := ts.aplColumns(t, "['logs'] | count"); got[0][0] != float64(10) {
		t.Errorf("count %v, want 10", got)
	}
}
