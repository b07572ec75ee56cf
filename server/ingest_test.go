package server

import (
	"fmt"
	"strings"
	"testing"
)

// countRows runs `['ds'] | count` and returns the count.
func (ts *testServer) count(ds string) int {
	ts.t.Helper()
	var res struct {
		Tables []struct {
			Columns [][]float64 `json:"columns"`
		} `json:"tables"`
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular",
		body: map[string]any{"apl": "['" + ds + "'] | count"}}, 200).json(ts.t, &res)
	return int(res.Tables[0].Columns[0][0])
}

func TestIngestFormatsAndEncodings(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	jsonBody := `[{"a":1,"b":"x"},{"a":2,"b":"y"}]`
	ndjson := "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n"
	csv := "a,b\n1,x\n2,y\n"
	cases := []struct {
		ct, body, enc, path string
		want                int
	}{
		{"application/json", jsonBody, "", "/v1/datasets/ds/ingest", 2},
		{"application/x-ndjson", ndjson, "gzip", "/v1/datasets/ds/ingest", 3},
		{"text/csv", csv, "zstd", "/v1/ingest/ds", 2},
		{"application/json; charset=utf-8", jsonBody, "zstd", "/v1/ingest/ds", 2},
		{"", ndjson, "", "/v1/datasets/ds/ingest", 3},                           // sniffed
		{"application/octet-stream", jsonBody, "", "/v1/datasets/ds/ingest", 2}, // sniffed
	}
	total := 0
	for i, c := range cases {
		var st ingestStatus
		r := req{method: "POST", path: c.path, body: c.body, contentType: c.ct, encoding: c.enc}
		if c.ct == "" {
			r.contentType = "-"
			r.body = []byte(c.body)
		}
		ts.must(r, 200).json(t, &st)
		if st.Ingested != c.want || st.Failed != 0 || st.ProcessedBytes != int64(len(c.body)) || st.Failures == nil {
			t.Fatalf("case %d: status %+v (body %d bytes)", i, st, len(c.body))
		}
		total += c.want
	}
	if n := ts.count("ds"); n != total {
		t.Fatalf("count %d, want %d", n, total)
	}
	// An empty body ingests nothing and still answers the full status.
	var st map[string]any
	ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest", body: "", contentType: "application/x-ndjson"}, 200).json(t, &st)
	for _, k := range []string{"ingested", "failed", "failures", "processedBytes", "blocksCreated", "walLength"} {
		if _, ok := st[k]; !ok {
			t.Fatalf("ingest status lacks %q: %v", k, st)
		}
	}
	if len(st) != 6 {
		t.Fatalf("ingest status has extra keys: %v", st)
	}
}

func TestIngestLabelsCSVFieldsAndTimestamps(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	labels := `{"region":"eu-west-1"}`
	body := `[{"msg":"a","ts":"02/Jan/2024:10:00:00 +0000"}]`
	var st ingestStatus
	ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest?timestamp-field=ts&timestamp-format=" +
		"02%2FJan%2F2006%3A15%3A04%3A05+-0700&unknown=1", body: body,
		headers: map[string]string{"X-Axiom-Event-Labels": labels}}, 200).json(t, &st)
	if st.Ingested != 1 || st.ProcessedBytes != int64(len(body)+len(labels)) {
		t.Fatalf("status %+v", st)
	}
	ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest?csv-delimiter=%3B", contentType: "text/csv",
		body: "1;x\n", headers: map[string]string{"X-Axiom-CSV-Fields": "n,s"}}, 200).json(t, &st)
	if st.Ingested != 1 {
		t.Fatalf("csv status %+v", st)
	}
	var res struct {
		Tables []struct {
			Fields []struct {
				Name string `json:"name"`
			} `json:"fields"`
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
		"apl": "['ds'] | where region == 'eu-west-1' | project _time, msg, region"}}, 200).json(t, &res)
	if len(res.Tables[0].Columns) != 3 || len(res.Tables[0].Columns[0]) != 1 ||
		res.Tables[0].Columns[0][0] != "2024-01-02T10:00:00Z" {
		t.Fatalf("labelled event %+v", res)
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
		"apl": "['ds'] | where s == 'x' | project n"}}, 200).json(t, &res)
	if len(res.Tables[0].Columns[0]) != 1 || res.Tables[0].Columns[0][0] != float64(1) {
		t.Fatalf("csv event %+v", res)
	}
}

func TestIngestErrors(t *testing.T) {
	ts := newTestServerConfig(t, Config{MaxBodyBytes: 1 << 10})
	ts.createDataset("ds")
	ingest := func(r req) req {
		r.method = "POST"
		if r.path == "" {
			r.path = "/v1/datasets/ds/ingest"
		}
		if r.contentType == "" {
			r.contentType = "application/x-ndjson"
		}
		return r
	}
	ts.mustErr(ingest(req{path: "/v1/datasets/nope/ingest", body: "{}"}), 404, "not found")
	ts.mustErr(ingest(req{body: "{}", contentType: "application/xml"}), 415, "unsupported content type")
	ts.mustErr(ingest(req{body: "{}", encoding: "br"}), 415, "Content-Encoding")
	ts.mustErr(ingest(req{body: "\x1f\x8bnot gzip", headers: map[string]string{"Content-Encoding": "gzip"}}), 400, "gzip")
	ts.mustErr(ingest(req{body: "not zstd", headers: map[string]string{"Content-Encoding": "zstd"}}), 400, "zstd")
	ts.mustErr(ingest(req{body: `[{"a":1},`, contentType: "application/json"}), 400, "invalid JSON body")
	ts.mustErr(ingest(req{body: "{}", headers: map[string]string{"X-Axiom-Event-Labels": "[1]"}}), 400, "X-Axiom-Event-Labels")
	ts.mustErr(ingest(req{body: "a\n", path: "/v1/datasets/ds/ingest?csv-delimiter=ab", contentType: "text/csv"}), 400, "csv-delimiter")
	big := strings.Repeat(`{"a":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`+"\n", 40)
	ts.mustErr(ingest(req{body: big, encoding: "gzip"}), 413, "after decompression")
	ts.mustErr(ingest(req{body: big}), 413, "limit")
	// Events that fail individually are reported, not fatal.
	var st ingestStatus
	ts.must(ingest(req{body: "{\"a\":1}\n[1,2]\n{\"_time\":\"not a time\"}\n"}), 200).json(t, &st)
	if st.Ingested != 1 || st.Failed != 2 || len(st.Failures) != 2 || st.Failures[0].Error == "" {
		t.Fatalf("status %+v", st)
	}
}

func TestIngestConcurrentRequestsAllLand(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	const workers, each = 8, 20
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			for i := 0; i < each; i++ {
				r := ts.do(req{method: "POST", path: "/v1/datasets/ds/ingest", contentType: "application/x-ndjson",
					body: fmt.Sprintf("{\"w\":%d,\"i\":%d}\n{\"w\":%d}\n", w, i, w), encoding: "zstd"})
				if r.status != 200 {
					errs <- fmt.Errorf("status %d: %s", r.status, r.body)
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := ts.count("ds"); n != workers*each*2 {
		t.Fatalf("count %d, want %d", n, workers*each*2)
	}
}
