package server

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
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

// testClock is a clock the test moves by hand.
type testClock struct{ ns atomic.Int64 }

func (c *testClock) now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *testClock) add(d time.Duration) { c.ns.Add(int64(d)) }
func (c *testClock) set(sec int64, ms int64) {
	c.ns.Store(sec*int64(time.Second) + ms*int64(time.Millisecond))
}

// driveLimits makes the server's limits run on a clock the test drives,
// starting at 1,700,000,000.5 s.
func (ts *testServer) driveLimits() *testClock {
	c := &testClock{}
	c.set(1_700_000_000, 500)
	ts.s.limits.now = c.now
	return c
}

func headerInt(t *testing.T, r resp, name string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(r.header[name], 10, 64)
	if err != nil {
		t.Fatalf("header %s = %q in %v", name, r.header[name], r.header)
	}
	return v
}

// Clients pace themselves by the headers of successful answers: every
// authenticated route carries the API rate limit, ingest its ingest
// limit, queries their query limit; Remaining counts down.
func TestLimitHeadersOnSuccess(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	clock := ts.driveLimits()
	ts.setLicense(func(l *meta.License) {
		l.APIRateLimitPerSecond, l.IngestLimitPerSecond, l.QueryLimitPerSecond = 10, 5, 4
	})
	for i := int64(1); i <= 3; i++ {
		r := ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
		if r.header["X-Ratelimit-Scope"] != "organization" || headerInt(t, r, "X-Ratelimit-Limit") != 10 ||
			headerInt(t, r, "X-Ratelimit-Remaining") != 10-i {
			t.Fatalf("request %d: headers %v", i, r.header)
		}
		// The window is empty again a second after the last request.
		if reset := headerInt(t, r, "X-Ratelimit-Reset"); reset != 1_700_000_002 {
			t.Fatalf("reset %d, want 1700000002", reset)
		}
		if r.header["X-Ingestlimit-Limit"] != "" || r.header["X-Querylimit-Limit"] != "" || r.header["Retry-After"] != "" {
			t.Fatalf("a dataset list carries ingest, query or retry headers: %v", r.header)
		}
	}
	for i := int64(1); i <= 2; i++ {
		r := ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest", contentType: "application/x-ndjson", body: "{}"}, 200)
		if headerInt(t, r, "X-Ingestlimit-Limit") != 5 || headerInt(t, r, "X-Ingestlimit-Remaining") != 5-i ||
			headerInt(t, r, "X-Ingestlimit-Reset") != 1_700_000_002 || r.header["X-Querylimit-Limit"] != "" {
			t.Fatalf("ingest %d: headers %v", i, r.header)
		}
	}
	apl := req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['ds'] | count"}}
	r := ts.must(apl, 200)
	if headerInt(t, r, "X-Querylimit-Limit") != 4 || headerInt(t, r, "X-Querylimit-Remaining") != 3 ||
		headerInt(t, r, "X-Ratelimit-Remaining") != 10-6 || r.header["X-Ingestlimit-Limit"] != "" {
		t.Fatalf("query: headers %v", r.header)
	}
	// A second and a slot later the window is empty again.
	clock.add(time.Second + 10*time.Millisecond)
	r = ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
	if headerInt(t, r, "X-Ratelimit-Remaining") != 9 {
		t.Fatalf("after a second: headers %v", r.header)
	}
	// A failed request of an ingest route still reports its limits.
	r = ts.do(req{method: "POST", path: "/v1/datasets/nope/ingest", contentType: "application/x-ndjson", body: "{}"})
	if r.status != 404 || r.header["X-Ingestlimit-Limit"] != "5" || r.header["X-Ratelimit-Limit"] != "10" {
		t.Fatalf("404 ingest: %d %v", r.status, r.header)
	}
}

// A refusal says when to come back, in Retry-After and in the message.
func TestLimitRefusalRetryAfter(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	clock := ts.driveLimits()
	ts.setLicense(func(l *meta.License) {
		l.APIRateLimitPerSecond, l.IngestLimitPerSecond, l.QueryLimitPerSecond = 3, 1, 1
	})
	for range 3 {
		ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
		clock.add(100 * time.Millisecond)
	}
	// At .8 s: the first request leaves the window 0.71 s later.
	r := ts.must(req{method: "GET", path: "/v2/datasets"}, 429)
	if r.header["Retry-After"] != "1" || r.header["X-Ratelimit-Scope"] != "organization" ||
		r.header["X-Ratelimit-Limit"] != "3" || r.header["X-Ratelimit-Remaining"] != "0" ||
		r.header["X-Ratelimit-Reset"] != "1700000002" {
		t.Fatalf("429 headers %v", r.header)
	}
	// A burst in one instant waits a second and a slot: Retry-After is
	// never short of the wait.
	clock.add(3 * time.Second)
	for range 3 {
		ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
	}
	if r := ts.must(req{method: "GET", path: "/v2/datasets"}, 429); r.header["Retry-After"] != "2" {
		t.Fatalf("429 after a burst: headers %v", r.header)
	}
	if !strings.Contains(string(r.body), "at most 3 requests per second; retry in 1 s") {
		t.Fatalf("429 body %s", r.body)
	}
	clock.add(time.Second + 10*time.Millisecond)
	ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest", contentType: "application/x-ndjson", body: "{}"}, 200)
	clock.add(500 * time.Millisecond)
	r = ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest", contentType: "application/x-ndjson", body: "{}"}, 430)
	if r.header["Retry-After"] != "1" || r.header["X-Ingestlimit-Limit"] != "1" || r.header["X-Ingestlimit-Remaining"] != "0" {
		t.Fatalf("ingest 430 headers %v", r.header)
	}
	clock.add(time.Second + 10*time.Millisecond)
	apl := req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['ds'] | count"}}
	ts.must(apl, 200)
	clock.add(500 * time.Millisecond)
	r = ts.must(apl, 430)
	if r.header["Retry-After"] != "1" || r.header["X-Querylimit-Limit"] != "1" || r.header["X-Querylimit-Remaining"] != "0" {
		t.Fatalf("query 430 headers %v", r.header)
	}
	// The API rate limit still has room: other routes are unaffected.
	ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
}

// A fixed per-second counter admitted 2x the limit across a second's
// boundary; the sliding window admits none of the second burst.
func TestLimitAcrossSecondBoundary(t *testing.T) {
	ts := newTestServer(t)
	clock := ts.driveLimits()
	clock.set(1_700_000_000, 900)
	ts.setLicense(func(l *meta.License) { l.APIRateLimitPerSecond = 20 })
	burst := func() (ok int) {
		for range 20 {
			if r := ts.do(req{method: "GET", path: "/v2/datasets"}); r.status == 200 {
				ok++
			} else if r.status != 429 || r.header["Retry-After"] == "" {
				t.Fatalf("status %d, headers %v", r.status, r.header)
			}
		}
		return ok
	}
	if n := burst(); n != 20 {
		t.Fatalf("first burst: %d admitted, want 20", n)
	}
	clock.set(1_700_000_001, 50) // 150 ms later, in the next second
	if n := burst(); n != 0 {
		t.Fatalf("burst 150 ms later across the boundary: %d admitted, want 0", n)
	}
	clock.set(1_700_000_001, 910) // the first burst has left the window
	if n := burst(); n != 20 {
		t.Fatalf("a second later: %d admitted, want 20", n)
	}
}

// Under a random arrival pattern, no span of one second admits more than
// the limit, and a refusal means the last second and a slot (10 ms)
// admitted the limit.
func TestWindowNeverOverLimit(t *testing.T) {
	const limit = 7
	rng := rand.New(rand.NewPCG(1, 2))
	var w window
	start := time.Unix(1_700_000_000, 0)
	now := start
	var admitted []time.Time
	for range 20000 {
		now = now.Add(time.Duration(rng.ExpFloat64() * float64(60*time.Millisecond)))
		st, ok := w.take(now, limit)
		if ok {
			admitted = append(admitted, now)
		}
		// within counts the admitted requests younger than d.
		within := func(d time.Duration) (n int64) {
			for _, a := range slices.Backward(admitted) {
				if now.Sub(a) >= d {
					break
				}
				n++
			}
			return n
		}
		strict, loose := within(time.Second), within(time.Second+10*time.Millisecond)
		if !ok && loose < limit {
			t.Fatalf("refused at %v with %d admitted in the last 1.01 s", now.Sub(start), loose)
		}
		if st.remaining > max(limit-strict, 0) || st.remaining < max(limit-loose, 0) {
			t.Fatalf("remaining %d with %d admitted in the last second, %d in 1.01 s", st.remaining, strict, loose)
		}
	}
	for i := range admitted {
		if j := i + limit; j < len(admitted) && admitted[j].Sub(admitted[i]) < time.Second {
			t.Fatalf("%d requests admitted within %v", limit+1, admitted[j].Sub(admitted[i]))
		}
	}
	if want := int(now.Sub(start).Seconds() * limit * 0.8); len(admitted) < want {
		t.Fatalf("%d admitted in %v, want at least %d", len(admitted), now.Sub(start), want)
	}
}
