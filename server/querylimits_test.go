package server

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// A query over its time budget fails alone with a clear error, and the
// server keeps answering.
func TestQueryTimeout(t *testing.T) {
	ts := newTestServerConfig(t, Config{QueryTimeout: 50 * time.Millisecond})
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "logs"}}, 200)
	var nd strings.Builder
	for i := 0; i < 20000; i++ {
		nd.WriteString(`{"a":` + itoa(int64(i)) + `,"s":"x` + itoa(int64(i%977)) + `"}` + "\n")
	}
	ts.must(req{method: "POST", path: "/v1/datasets/logs/ingest", body: nd.String(), contentType: "application/x-ndjson"}, 200)
	// A cross join of the dataset with itself: 400M rows.
	slow := map[string]any{"apl": "['logs'] | extend k = 1 | join kind=inner (['logs'] | extend k = 1) on k | summarize count()"}
	began := time.Now()
	r := ts.do(req{method: "POST", path: "/v1/datasets/_apl?format=tabular&nocache=true", body: slow})
	if r.status != 400 || !strings.Contains(string(r.body), "time budget") {
		t.Fatalf("slow query: %d %s", r.status, r.body)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("the query stopped %v after its 50ms budget", d)
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['logs'] | count"}}, 200)
}

// Beyond the cap, queries wait for a slot, then get 429 with the
// clients' headers.
func TestQueryConcurrencyCap(t *testing.T) {
	g := newQueryGate(2, 30*time.Millisecond)
	ctx := t.Context()
	var leaves []func()
	for i := 0; i < 2; i++ {
		leave, err := g.enter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		leaves = append(leaves, leave)
	}
	_, err := g.enter(ctx)
	ae, ok := err.(*apiError)
	if !ok || ae.Status != 429 || len(ae.Headers) < 3 {
		t.Fatalf("third query: %v", err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(10 * time.Millisecond)
		leaves[0]()
	}()
	leave, err := g.enter(ctx) // waits for the slot freed meanwhile
	if err != nil {
		t.Fatalf("a query that could wait for a slot: %v", err)
	}
	leave()
	leaves[1]()
	wg.Wait()
}
