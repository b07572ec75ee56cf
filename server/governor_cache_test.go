package server

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/db"
)

// cachedServer is a governed server whose engine keeps decoded columns
// (up to 64 MB) in a pool of the given size, over a flushed dataset
// whose columns a query leaves in the cache.
func cachedServer(t *testing.T, pool int64) *testServer {
	t.Helper()
	d := db.OpenMemory(db.Options{Isolated: true, Engine: db.EngineOptions{ColumnCacheBytes: 64 << 20}})
	ts := newTestServerConfig(t, Config{DB: d, MemoryBudget: pool + processBaseBytes,
		Engine: db.EngineOptions{ColumnCacheBytes: 64 << 20, ResultCacheBytes: -1}})
	ts.s.gov.mu.Lock()
	ts.s.gov.watch.budget = 0 // the test process's memory is not the server's
	ts.s.gov.mu.Unlock()
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "m"}}, 200)
	var nd strings.Builder
	for i := range 20000 {
		nd.WriteString(`{"a":` + itoa(int64(i)) + `,"b":"v` + itoa(int64(i%7)) + `"}` + "\n")
	}
	ts.must(req{method: "POST", path: "/v1/datasets/m/ingest", body: nd.String(), contentType: "application/x-ndjson"}, 200)
	ds, err := d.Dataset("m")
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	return ts
}

// metric reads one gauge of /metrics; -1 when it is absent.
func metric(ts *testServer, name string) int64 {
	r := ts.do(req{method: "GET", path: "/metrics"})
	if r.status != 200 {
		ts.t.Fatalf("/metrics: %d %s", r.status, r.body)
	}
	body := string(r.body)
	m := regexp.MustCompile(`(?m)^` + name + ` (\d+)$`).FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

// The column cache is lent what the queries leave of the pool: /metrics
// shows what it holds, a query that needs the memory takes it from the
// cache instead of being refused, and the cache fills again once the
// query is done.
func TestColumnCacheYieldsToQueries(t *testing.T) {
	const pool = 64 << 20
	ts := cachedServer(t, pool)
	ts.must(req{method: "POST", path: aplPath, body: aplBody("m | summarize sum(a) by b")}, 200)
	cached := metric(ts, "aplite_column_cache_bytes")
	if cached <= 0 {
		t.Fatalf("after a query the column cache holds %d bytes on /metrics", cached)
	}
	if got := metric(ts, "aplite_query_memory_pool_bytes"); got != pool {
		t.Errorf("pool on /metrics: %d, want %d", got, pool)
	}
	// A query reserving all but a little of the pool is admitted at once,
	// and the cache gives back what no longer fits.
	left := cached / 2
	hog, err := ts.s.gov.admit(t.Context(), pool-left)
	if err != nil {
		t.Fatalf("a query the cache's columns stand in the way of was refused: %v", err)
	}
	if got := metric(ts, "aplite_column_cache_bytes"); got > left {
		t.Errorf("with %d bytes of the pool left the cache still holds %d", left, got)
	}
	if got := metric(ts, "aplite_query_memory_reserved_bytes"); got != pool-left {
		t.Errorf("reserved on /metrics: %d, want %d", got, pool-left)
	}
	hog.release()
	ts.must(req{method: "POST", path: aplPath, body: aplBody("m | summarize sum(a) by b")}, 200)
	if got := metric(ts, "aplite_column_cache_bytes"); got < cached {
		t.Errorf("with the pool free again the cache holds %d bytes, had %d", got, cached)
	}
}

// Over its budget, the process first lets the column cache go and waits
// for a collection; only if that does not bring it under is a query
// stopped.
func TestGovernorEmptiesCacheBeforeShedding(t *testing.T) {
	ts := cachedServer(t, 64<<20)
	ts.must(req{method: "POST", path: aplPath, body: aplBody("m | summarize sum(a) by b")}, 200)
	g := ts.s.gov
	if g.cache.Used() == 0 {
		t.Fatal("the query left nothing in the column cache")
	}
	g.mu.Lock()
	g.watch.budget = 100 << 20
	g.mu.Unlock()
	ctx, stop := context.WithCancelCause(t.Context())
	defer stop(nil)
	l, err := g.admit(ctx, 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	g.mu.Lock()
	l.stop = stop
	g.mu.Unlock()
	g.check(memSample{resident: 150 << 20, gcs: 7, at: time.Unix(100, 0)})
	if ctx.Err() != nil {
		t.Fatal("a query was stopped while the column cache still held columns")
	}
	if n := g.cache.Used(); n != 0 {
		t.Fatalf("over the budget the cache still holds %d bytes", n)
	}
	g.check(memSample{resident: 150 << 20, gcs: 7, at: time.Unix(100, 1)})
	if ctx.Err() != nil {
		t.Fatal("a query was stopped before the cache's columns were collected")
	}
	g.check(memSample{resident: 150 << 20, gcs: 8, at: time.Unix(100, 2)})
	if ctx.Err() == nil {
		t.Fatal("still over the budget with the cache empty and collected, yet no query was stopped")
	}
}
