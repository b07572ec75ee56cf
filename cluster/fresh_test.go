package cluster

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/internal/seaweedtest"
)

// Query nodes started with -ingest answer with the events the ingest
// node holds in its buffer and has not flushed to the bucket: right
// after an ingest they give the ingest node's answer, where a query node
// without -ingest still lacks the unflushed events.
func TestClusterFreshEvents(t *testing.T) {
	endpoint := seaweedtest.Start(t)
	root := t.TempDir()
	storage := []string{"-storage", "s3://aplite/fresh", "-refresh", "200ms", "-cluster-secret", "s3cret"}
	// Blocks of 2000 events are flushed as they fill; the rest waits for
	// the hourly flush (an idle dataset is flushed after 2 s by default:
	// on a loaded machine the test outlived that and the buffered events
	// reached the bucket before the ingest node was killed).
	ingest := startNode(t, "ingest", endpoint, filepath.Join(root, "ingest"),
		append([]string{"-role", "ingest", "-flush-rows", "2000", "-flush-interval", "1h", "-idle-flush", "1h", "-compact-interval", "1h"}, storage...)...)
	a1, a2 := seaweedtest.FreeAddr(t), seaweedtest.FreeAddr(t)
	fresh := append([]string{"-role", "query", "-ingest", ingest.addr, "-peers", a1 + "," + a2, "-fragment-min-rows", "1"}, storage...)
	q1 := startNodeAt(t, "query1", a1, endpoint, filepath.Join(root, "q1"), fresh...)
	q2 := startNodeAt(t, "query2", a2, endpoint, filepath.Join(root, "q2"), fresh...)
	// stale reads no tails (-tail 0): it sees what the flushes brought.
	stale := startNode(t, "stale", endpoint, filepath.Join(root, "stale"), append([]string{"-role", "query"}, append(storage, "-tail", "0")...)...)

	ingest.mustCall("POST", "/v2/datasets", "application/json", []byte(`{"name":"logs"}`))
	const flushed, buffered = 6 * 2000, 1500
	for i := range 6 {
		ingest.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(int64(i+1), 2000))
	}
	for _, n := range []*node{stale, q1} {
		waitDataset(t, n)
	}
	stale.waitCount(flushed) // the full blocks reached the bucket
	ingest.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(7, buffered))
	q1.waitCount(flushed + buffered)
	checkSame(t, ingest, q1, q2)
	if got, want := infoEvents(t, q1), infoEvents(t, ingest); got != want || want != flushed+buffered {
		t.Errorf("dataset info: query1 counts %d events, the ingest node %d, want %d", got, want, flushed+buffered)
	}
	time.Sleep(500 * time.Millisecond) // more than a refresh: the buffered events are still not in the bucket
	if got, want := stale.count(), "[[12000]]"; got != want {
		t.Errorf("a query node without -ingest counts %s, want %s (the buffered events are not flushed)", got, want)
	}
	if q1.metric("aplite_fragments_served_total")+q2.metric("aplite_fragments_served_total") == 0 {
		t.Error("the query nodes served no fragments to each other")
	}
	if ingest.metric("aplite_fragments_served_total") == 0 {
		t.Error("the ingest node served no rest fragment")
	}

	t.Run("aplite check reads the bucket", func(t *testing.T) {
		cmd := exec.Command(binary, "check", "-storage", "s3://aplite/fresh")
		cmd.Env = ingest.env
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "every checksum is valid") {
			t.Errorf("check -storage: %v\n%s", err, out)
		}
	})

	t.Run("queries that need the ingest node are answered there", func(t *testing.T) {
		// A dataset created a moment ago, whose events are all unflushed:
		// this node's catalog has no field of it (or no dataset at all).
		// q3 loads the catalogs once, at start: it never sees brandnew.
		q3 := startNode(t, "query3", endpoint, filepath.Join(root, "q3"),
			append([]string{"-role", "query", "-ingest", ingest.addr}, append(storage, "-refresh", "1h")...)...)
		ingest.mustCall("POST", "/v2/datasets", "application/json", []byte(`{"name":"brandnew"}`))
		ingest.mustCall("POST", "/v1/datasets/brandnew/ingest", "application/x-ndjson", gen.NDJSON(8, 100))
		time.Sleep(600 * time.Millisecond) // q1 has refreshed: it knows brandnew, with no field
		for _, q := range []string{
			"['brandnew'] | count",
			"['brandnew'] | summarize count() by status | order by status asc",
			"union ['logs'], ['brandnew'] | count", // cannot be cut into fragments
		} {
			want := ingest.query(q)
			for _, n := range []*node{q1, q3} {
				if got := n.query(q); !sameJSON(got, want) {
					t.Errorf("%s: %s %s, ingest node %s", q, n.name, got, want)
				}
			}
		}
		if q1.metric("aplite_queries_forwarded_total") == 0 {
			t.Error("query1 forwarded no query")
		}
	})

	t.Run("ingest node down", func(t *testing.T) {
		ingest.kill()
		code, body := q2.call("POST", "/v1/datasets/_apl?format=tabular&nocache=true", "application/json", []byte(`{"apl":"union ['logs'], ['logs'] | count"}`))
		if code != 200 || !containsAll(string(body), `"isPartial":true`, "apl_partialresult_unflushed", "[[24000]]") {
			t.Errorf("a union with the ingest node down: %d %s", code, body)
		}
		code, body = q1.call("POST", "/v1/datasets/_apl?format=tabular&nocache=true", "application/json", []byte(`{"apl":"['logs'] | count"}`))
		if code != 200 || !containsAll(string(body), `"isPartial":true`, "apl_partialresult_unflushed", "[[12000]]") {
			t.Errorf("with the ingest node down: %d %s", code, body)
		}
	})
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// waitDataset polls until the node knows the dataset logs (a query node
// learns of it at its next catalog refresh).
func waitDataset(t *testing.T, n *node) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		code, body := n.call("POST", "/v1/datasets/_apl?format=tabular&nocache=true", "application/json", []byte(`{"apl":"['logs'] | count"}`))
		if code == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never saw dataset logs: %d %s", n.name, code, body)
		}
	}
}

// infoEvents is numEvents of dataset logs as the node's info reports it.
func infoEvents(t *testing.T, n *node) int64 {
	t.Helper()
	var info struct {
		NumEvents int64 `json:"numEvents"`
	}
	if err := json.Unmarshal(n.mustCall("GET", "/v1/datasets/logs/info", "", nil), &info); err != nil {
		t.Fatal(err)
	}
	return info.NumEvents
}
