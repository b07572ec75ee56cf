package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/db"
)

// governedServer is a test server whose queries share a pool of the
// given size (no caches set aside), over a dataset of 2,000 rows.
func governedServer(t *testing.T, pool int64) *testServer {
	t.Helper()
	ts := newTestServerConfig(t, Config{MemoryBudget: pool + processBaseBytes,
		Engine: db.EngineOptions{ColumnCacheBytes: -1, ResultCacheBytes: -1}})
	if got := ts.s.gov.pool; got != pool {
		t.Fatalf("pool %d, want %d", got, pool)
	}
	// The test process's own memory is not the server's: no watchdog
	// (TestGovernorSheds drives it).
	ts.s.gov.mu.Lock()
	ts.s.gov.watch.budget = 0
	ts.s.gov.mu.Unlock()
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "m"}}, 200)
	var nd strings.Builder
	for i := 0; i < 2000; i++ {
		nd.WriteString(`{"a":` + itoa(int64(i)) + "}\n")
	}
	ts.must(req{method: "POST", path: "/v1/datasets/m/ingest", body: nd.String(), contentType: "application/x-ndjson"}, 200)
	return ts
}

func aplBody(apl string) map[string]any { return map[string]any{"apl": apl} }

const aplPath = "/v1/datasets/_apl?format=tabular&nocache=true"

// A query the pool cannot admit waits, then gets 429 with Retry-After
// and a message that says the server, not the query, is out of memory;
// once the memory is back the same query runs, and gives it back.
func TestQueryOutOfServerMemory(t *testing.T) {
	ts := governedServer(t, 64<<20)
	ts.s.gov.wait = 20 * time.Millisecond
	hog, err := ts.s.gov.admit(t.Context(), 60<<20)
	if err != nil {
		t.Fatal(err)
	}
	r := ts.do(req{method: "POST", path: aplPath, body: aplBody("m | count")})
	if r.status != 429 || r.header["Retry-After"] == "" || !strings.Contains(string(r.body), "the server is out of query memory") {
		t.Fatalf("with the pool taken: %d %v %s", r.status, r.header, r.body)
	}
	hog.release()
	ts.must(req{method: "POST", path: aplPath, body: aplBody("m | count")}, 200)
	if n := ts.s.gov.inUse(); n != 0 {
		t.Errorf("%d bytes still held after the queries ended", n)
	}
}

// A waiting query runs as soon as a running one gives its memory back.
func TestQueryWaitsForMemory(t *testing.T) {
	ts := governedServer(t, 64<<20)
	ts.s.gov.wait = time.Minute
	hog, err := ts.s.gov.admit(t.Context(), 60<<20)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	waited := false
	ts.s.gov.waiting = func() { once.Do(func() { waited = true; go hog.release() }) }
	began := time.Now()
	ts.must(req{method: "POST", path: aplPath, body: aplBody("m | count")}, 200)
	if !waited {
		t.Error("the query did not wait for the memory held")
	}
	if d := time.Since(began); d > 30*time.Second {
		t.Errorf("the query waited %v, not for the release", d)
	}
}

// A running query whose growth the pool cannot grant fails alone with
// the budget's error and gives back what it held; when it alone needs
// more than the whole pool, retrying cannot help: 432.
func TestQueryGrowthRefused(t *testing.T) {
	ts := governedServer(t, 64<<20)
	big := "m | extend r = range(1, 2000 + a * 0) | mv-expand r | summarize count() by a, r | count"
	r := ts.do(req{method: "POST", path: aplPath, body: aplBody(big)})
	if r.status != 432 || !strings.Contains(string(r.body), "query memory budget exceeded: the query needs more than the 64 MB the server has for all its queries (-memory-budget)") {
		t.Fatalf("a query bigger than the pool: %d %s", r.status, r.body)
	}
	// Other queries hold most of the pool: the same query is refused
	// its growth, and may retry.
	hog, err := ts.s.gov.admit(t.Context(), 40<<20)
	if err != nil {
		t.Fatal(err)
	}
	r = ts.do(req{method: "POST", path: aplPath, body: aplBody(big)})
	if r.status != 429 || r.header["Retry-After"] == "" || !strings.Contains(string(r.body), "the server is out of query memory: running queries hold") {
		t.Fatalf("a query the others crowd out: %d %v %s", r.status, r.header, r.body)
	}
	hog.release()
	if n := ts.s.gov.inUse(); n != 0 {
		t.Errorf("%d bytes still held after the failed queries", n)
	}
	ts.must(req{method: "POST", path: aplPath, body: aplBody("m | count")}, 200)
}

// The default budget reads the tightest memory cgroup limit on the
// process's path (v1 or v2), else the host's memory.
func TestMachineMemory(t *testing.T) {
	root := t.TempDir()
	write := func(p, v string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proc/meminfo", "MemTotal:       24000000 kB\nMemFree: 1 kB\n")
	if n, from := machineMemory(root, "0::/\n"); n != 24000000<<10 || from != "the host's memory" {
		t.Errorf("no cgroup: %d %q", n, from)
	}
	write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
	write("sys/fs/cgroup/memory/a/memory.limit_in_bytes", "4294967296\n")
	write("sys/fs/cgroup/memory/a/b/memory.limit_in_bytes", "9223372036854771712\n")
	if n, from := machineMemory(root, "4:memory:/a/b\n1:cpu:/\n"); n != 4<<30 || from != "the memory cgroup's limit" {
		t.Errorf("v1, limit on the parent: %d %q", n, from)
	}
	write("sys/fs/cgroup/svc/memory.max", "1073741824\n")
	write("sys/fs/cgroup/memory.max", "max\n")
	if n, _ := machineMemory(root, "0::/svc\n"); n != 1<<30 {
		t.Errorf("v2: %d", n)
	}
	// A cgroup namespace: the process's path is not under the mount,
	// whose top is its own cgroup.
	write("sys/fs/cgroup/memory.max", "2147483648\n")
	if n, _ := machineMemory(root, "0::/not/here\n"); n != 2<<30 {
		t.Errorf("namespaced v2: %d", n)
	}
}

// Over its budget whatever the reservations say, the process admits no
// query and stops the newest running one with the out-of-memory answer;
// the next only after the first gave its memory back and a collection
// ran; under the budget again, queries are admitted.
func TestGovernorSheds(t *testing.T) {
	g := newMemGovernor(1<<30, 0)
	g.watch.budget = 100 << 20
	start := func() (context.Context, *memLease) {
		ctx, stop := context.WithCancelCause(t.Context())
		t.Cleanup(func() { stop(nil) })
		l, err := g.admit(ctx, 8<<20)
		if err != nil {
			t.Fatal(err)
		}
		g.mu.Lock()
		l.stop = stop
		g.mu.Unlock()
		return ctx, l
	}
	oldCtx, old := start()
	newCtx, newest := start()
	g.check(memSample{resident: 150 << 20, gcs: 7})
	me := memoryError(newCtx, context.Canceled)
	if newCtx.Err() == nil || me == nil || me.(*apiError).Status != 429 || !strings.Contains(me.Error(), "holds 150 MB, at the edge of its budget of 100 MB (-memory-budget), so the newest query was stopped") {
		t.Fatalf("the newest query after a sample over the budget: %v, answer %v", newCtx.Err(), me)
	}
	if _, err := g.admit(t.Context(), 1); memoryAPIError(err) == nil {
		t.Errorf("a query admitted while the process is over its budget: %v", err)
	}
	g.check(memSample{resident: 150 << 20, gcs: 8})
	if oldCtx.Err() != nil {
		t.Fatal("a second query stopped before the first gave its memory back")
	}
	newest.release()
	g.check(memSample{resident: 150 << 20, gcs: 8})
	if oldCtx.Err() != nil {
		t.Fatal("a second query stopped before a collection ran")
	}
	g.check(memSample{resident: 150 << 20, gcs: 9})
	if oldCtx.Err() == nil {
		t.Fatal("still over the budget after a collection, yet the next query runs on")
	}
	// Under the budget again, queries are admitted. A stopped query
	// that cannot see its context keeps its memory; the next one is
	// stopped after shedPatience all the same.
	g.check(memSample{resident: 94 << 20, gcs: 10})
	thirdCtx, third := start()
	fourthCtx, fourth := start()
	at := time.Unix(100, 0)
	g.check(memSample{resident: 150 << 20, gcs: 11, at: at})
	if fourthCtx.Err() == nil {
		t.Fatal("the newest query ran on over the budget")
	}
	g.check(memSample{resident: 150 << 20, gcs: 12, at: at.Add(shedPatience / 2)})
	if thirdCtx.Err() != nil {
		t.Fatal("stopped while the first stopped query might still give its memory back")
	}
	g.check(memSample{resident: 150 << 20, gcs: 12, at: at.Add(shedPatience)})
	if thirdCtx.Err() == nil {
		t.Fatal("a stuck stopped query held the next one off forever")
	}
	old.release()
	third.release()
	fourth.release()
	// Over the budget with no query running: what holds the memory is
	// not a query's, and a query is admitted rather than none ever.
	g.check(memSample{resident: 150 << 20, gcs: 13})
	idle, err := g.admit(t.Context(), 1)
	if err != nil {
		t.Fatalf("an idle server over its budget refused a query: %v", err)
	}
	idle.release()
	g.check(memSample{resident: 94 << 20, gcs: 14})
	l, err := g.admit(t.Context(), 1)
	if err != nil {
		t.Fatalf("under the budget again: %v", err)
	}
	l.release()
}

// Eight light summaries fit a pool sized for eight queries that charge
// less than one lease step (16 MB, core/exec/budget.go) each: a query
// reserves what it charges, not twice that (rssPerCharged), so one
// alone holds its start and one step at most, and eight at once all
// answer.
func TestLightSummariesShareThePool(t *testing.T) {
	const light = "m | extend r = range(1, 10 + a * 0) | mv-expand r | summarize count() by a % 100, r | count"
	const step = 16 << 20
	each := queryReservation(light) + step
	ts := governedServer(t, 8*each+8<<20)
	ts.must(req{method: "POST", path: aplPath, body: aplBody(light)}, 200)
	if p := ts.s.gov.peakUse(); p > each {
		t.Errorf("one light summary reserved %d MB at its peak, over its start and one step (%d MB)", p>>20, each>>20)
	}
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = ts.do(req{method: "POST", path: aplPath, body: aplBody(light)}).status
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("light summary %d of 8: %d, want 200 (answers %v)", i, c, codes)
			break
		}
	}
	if n := ts.s.gov.inUse(); n != 0 {
		t.Errorf("%d bytes still held after the queries ended", n)
	}
}
