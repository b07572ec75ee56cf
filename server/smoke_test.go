package server

import "testing"

// TestIngestThenQuery is the end-to-end path every benchmark relies on:
// create, ingest, and see the events in a query at once.
func TestIngestThenQuery(t *testing.T) {
	ts := newTestServer(t)
	ts.must(req{method: "GET", path: "/v2/user", noOrg: true}, 200)
	ts.createDataset("logs")
	var st ingestStatus
	ts.must(req{method: "POST", path: "/v1/datasets/logs/ingest", contentType: "application/x-ndjson",
		body: "{\"a\":1}\n{\"a\":2}\n"}, 200).json(t, &st)
	if st.Ingested != 2 || st.Failed != 0 || st.ProcessedBytes != 16 {
		t.Fatalf("ingest status %+v", st)
	}
	var res struct {
		Tables []struct {
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular",
		body: map[string]any{"apl": "['logs'] | count"}}, 200).json(t, &res)
	if len(res.Tables) != 1 || len(res.Tables[0].Columns) != 1 || res.Tables[0].Columns[0][0] != float64(2) {
		t.Fatalf("count result %+v", res)
	}
}
