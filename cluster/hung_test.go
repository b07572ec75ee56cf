package cluster

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/internal/seaweedtest"
)

// A stopped node (SIGSTOP: its connections stay open and silent) costs a
// query at most -fragment-timeout. With the ingest node stopped a query
// node answers with what is flushed, isPartial, naming the ingest node
// and the events it lacks, both for a query it cuts into fragments and
// for one it sends on whole; resumed, the answers are whole again. With
// a query peer stopped, its blocks are scanned elsewhere and the answer
// is whole.
func TestClusterHungNode(t *testing.T) {
	endpoint := seaweedtest.Start(t)
	root := t.TempDir()
	storage := []string{"-storage", "s3://aplite/hung", "-refresh", "200ms", "-cluster-secret", "s3cret"}
	ingest := startNode(t, "ingest", endpoint, filepath.Join(root, "ingest"),
		append([]string{"-role", "ingest", "-flush-rows", "2000", "-flush-interval", "1h", "-compact-interval", "1h"}, storage...)...)
	a1, a2 := seaweedtest.FreeAddr(t), seaweedtest.FreeAddr(t)
	const timeout = 2 * time.Second
	args := append([]string{"-role", "query", "-ingest", ingest.addr, "-peers", a1 + "," + a2,
		"-fragment-min-rows", "1", "-fragment-timeout", timeout.String()}, storage...)
	q1 := startNodeAt(t, "query1", a1, endpoint, filepath.Join(root, "q1"), args...)
	q2 := startNodeAt(t, "query2", a2, endpoint, filepath.Join(root, "q2"), args...)
	// A query node without -ingest tells when the flushed blocks are all
	// in the bucket's catalog, which the query nodes read.
	flushedOnly := startNode(t, "flushed", endpoint, filepath.Join(root, "flushed"), append([]string{"-role", "query", "-tail", "0"}, storage...)...)

	ingest.mustCall("POST", "/v2/datasets", "application/json", []byte(`{"name":"logs"}`))
	const flushed, buffered = 4 * 2000, 500
	for i := range 4 {
		ingest.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(int64(i+1), 2000))
	}
	ingest.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(9, buffered))
	waitDataset(t, flushedOnly)
	flushedOnly.waitCount(flushed)
	q1.waitCount(flushed + buffered)

	stop(t, ingest)
	// query1 reads the catalog the flushed node saw within -refresh; until
	// then its partial count is smaller.
	for deadline := time.Now().Add(20 * time.Second); ; {
		if _, cols, _ := timedQuery(t, q1, "['logs'] | count"); cols == "[[8000]]" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("query1 counts %s with the ingest node stopped, want the 8000 flushed", cols)
		}
	}
	for q, want := range map[string]string{
		"['logs'] | count":                     "[[8000]]",
		"union ['logs'], ['logs'] | count":     "[[16000]]", // sent on whole to the ingest node
		"['logs'] | summarize count() by 1==1": "[[true],[8000]]",
	} {
		st, cols, took := timedQuery(t, q1, q)
		t.Logf("ingest node stopped: %s answered in %s: partial %v, %s", q, took.Round(time.Millisecond), st.IsPartial, cols)
		if took > timeout+3*time.Second {
			t.Errorf("%s took %s with a %s fragment timeout", q, took, timeout)
		}
		if !st.IsPartial || !sameJSON(cols, want) || !st.says("apl_partialresult_unflushed", ingest.addr, "did not answer within 2s", "not flushed") {
			t.Errorf("%s with the ingest node stopped: partial %v, %s (want %s), messages %+v", q, st.IsPartial, cols, want, st.Messages)
		}
	}
	if got := q1.metric("aplite_queries_partial_total"); got < 4 {
		t.Errorf("query1 counted %d partial answers, want 4 or more", got)
	}
	resume(t, ingest)
	if st, cols, _ := timedQuery(t, q1, "['logs'] | count"); st.IsPartial || cols != "[[8500]]" {
		t.Errorf("with the ingest node resumed: partial %v, %s", st.IsPartial, cols)
	}

	stop(t, q2)
	st, cols, took := timedQuery(t, q1, "['logs'] | count")
	t.Logf("query2 stopped: answered in %s: partial %v, %s", took.Round(time.Millisecond), st.IsPartial, cols)
	if took > timeout+3*time.Second || st.IsPartial || cols != "[[8500]]" {
		t.Errorf("with query2 stopped: %s after %s, partial %v", cols, took, st.IsPartial)
	}
	if q1.metric("aplite_fragments_timed_out_total") == 0 {
		t.Error("query1 counted no fragment timed out")
	}
	resume(t, q2)
}

// stop and resume send SIGSTOP and SIGCONT; a node left stopped is
// resumed before it is killed.
func stop(t *testing.T, n *node) {
	t.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if n.cmd != nil {
			n.cmd.Process.Signal(syscall.SIGCONT)
		}
	})
}

func resume(t *testing.T, n *node) {
	t.Helper()
	if err := n.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// queryStatus is the status of a tabular answer.
type queryStatus struct {
	IsPartial bool `json:"isPartial"`
	Messages  []struct {
		Code string `json:"code"`
		Msg  string `json:"msg"`
	} `json:"messages"`
}

// says reports whether a message of code contains every one of subs.
func (s queryStatus) says(code string, subs ...string) bool {
	for _, m := range s.Messages {
		if m.Code == code && containsAll(m.Msg, subs...) {
			return true
		}
	}
	return false
}

// timedQuery runs apl on n and returns the answer's status, its first
// table's columns and how long it took; anything but 200 fails the test.
func timedQuery(t *testing.T, n *node, apl string) (queryStatus, string, time.Duration) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"apl": apl, "startTime": "2000-01-01T00:00:00Z", "endTime": "2100-01-01T00:00:00Z"})
	start := time.Now()
	code, b := n.call("POST", "/v1/datasets/_apl?format=tabular&nocache=true", "application/json", body)
	took := time.Since(start)
	var res struct {
		Status queryStatus `json:"status"`
		Tables []struct {
			Columns json.RawMessage `json:"columns"`
		} `json:"tables"`
	}
	if code != 200 || json.Unmarshal(b, &res) != nil || len(res.Tables) == 0 {
		t.Fatalf("%s: %q: %d after %s: %s", n.name, apl, code, took, b)
	}
	return res.Status, strings.TrimSpace(string(res.Tables[0].Columns)), took
}
