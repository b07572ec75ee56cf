package server

import (
	"strconv"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// setLicense changes the default org's limits.
func (ts *testServer) setLicense(change func(l *meta.License)) {
	ts.t.Helper()
	err := ts.s.meta.Update(func(tx *meta.Tx) error {
		var o meta.Org
		if err := tx.Get(meta.KindOrg, "", ts.org, &o); err != nil {
			return err
		}
		change(&o.License)
		return tx.Put(meta.KindOrg, "", ts.org, o)
	})
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.s.forgetOrg(ts.org)
}

// untilFresh waits for the start of a second, so a test's burst of
// requests falls into one rate window.
func untilFresh() {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)) + 5*time.Millisecond)
}

func TestAPIRateLimit(t *testing.T) {
	ts := newTestServer(t)
	ts.setLicense(func(l *meta.License) { l.APIRateLimitPerSecond = 3 })
	untilFresh()
	for i := 0; i < 3; i++ {
		ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
	}
	r := ts.must(req{method: "GET", path: "/v2/datasets"}, 429)
	reset, _ := strconv.ParseInt(r.header["X-Ratelimit-Reset"], 10, 64)
	if r.header["X-Ratelimit-Scope"] != "organization" || r.header["X-Ratelimit-Limit"] != "3" ||
		r.header["X-Ratelimit-Remaining"] != "0" || reset < time.Now().Unix() {
		t.Fatalf("headers %v", r.header)
	}
	// The next second admits requests again.
	untilFresh()
	ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
}

func TestIngestAndQueryLimits(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	ts.setLicense(func(l *meta.License) { l.IngestLimitPerSecond, l.QueryLimitPerSecond = 1, 1 })
	untilFresh()
	ts.ingestNDJSON("ds", "{}")
	r := ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest", contentType: "application/x-ndjson", body: "{}"}, 430)
	if r.header["X-Ingestlimit-Limit"] != "1" || r.header["X-Ingestlimit-Remaining"] != "0" || r.header["X-Ingestlimit-Reset"] == "" {
		t.Fatalf("ingest limit headers %v", r.header)
	}
	apl := req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['ds'] | count"}}
	ts.must(apl, 200)
	r = ts.must(apl, 430)
	if r.header["X-Querylimit-Limit"] != "1" || r.header["X-Querylimit-Reset"] == "" {
		t.Fatalf("query limit headers %v", r.header)
	}
	// Other routes are not affected by the ingest and query limits.
	ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
}

func TestWindowCountsPerSecond(t *testing.T) {
	var w window
	for i := int64(1); i <= 5; i++ {
		rem, ok := w.take(100, 5)
		if !ok || rem != 5-i {
			t.Fatalf("take %d: %d %v", i, rem, ok)
		}
	}
	if _, ok := w.take(100, 5); ok {
		t.Fatal("sixth request in the same second admitted")
	}
	if rem, ok := w.take(101, 5); !ok || rem != 4 {
		t.Fatalf("new second: %d %v", rem, ok)
	}
}
