package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/internal/seaweedtest"
)

const token = "xapt-clustertest"

// binary is the aplite binary under test, built once.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aplite-cluster")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "aplite")
	if out, err := exec.Command("go", "build", "-o", binary, "..").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// node is one running `aplite serve`.
type node struct {
	t    *testing.T
	name string
	addr string
	data string
	args []string
	env  []string
	cmd  *exec.Cmd
	log  *bytes.Buffer
}

func startNode(t *testing.T, name, endpoint, data string, args ...string) *node {
	return startNodeAt(t, name, seaweedtest.FreeAddr(t), endpoint, data, args...)
}

func startNodeAt(t *testing.T, name, addr, endpoint, data string, args ...string) *node {
	n := &node{t: t, name: name, addr: addr, data: data, args: args,
		env: append(os.Environ(), "AWS_ENDPOINT_URL="+endpoint, "AWS_ACCESS_KEY_ID=aplite", "AWS_SECRET_ACCESS_KEY=aplite", "AWS_REGION=us-east-1")}
	n.start()
	t.Cleanup(n.kill)
	return n
}

func (n *node) start() {
	n.t.Helper()
	args := append([]string{"serve", "-addr", n.addr, "-data", n.data, "-token", token}, n.args...)
	n.cmd = exec.Command(binary, args...)
	n.cmd.Env = n.env
	n.log = &bytes.Buffer{}
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	if err := n.cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", n.addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.t.Fatalf("%s did not start: %s", n.name, n.log.String())
}

// kill stops the node at once (SIGKILL): no flush, no goodbye.
func (n *node) kill() {
	if n.cmd != nil && n.cmd.Process != nil {
		n.cmd.Process.Kill()
		n.cmd.Wait()
		n.cmd = nil
	}
}

func (n *node) call(method, path, ctype string, body []byte) (int, []byte) {
	n.t.Helper()
	return n.callAs(token, method, path, ctype, body)
}

// tokenID reads the id of a created token.
func tokenID(t *testing.T, created []byte) string {
	var tok struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(created, &tok); err != nil || tok.ID == "" {
		t.Fatalf("token id: %s", created)
	}
	return tok.ID
}

func (n *node) callAs(tok, method, path, ctype string, body []byte) (int, []byte) {
	n.t.Helper()
	return n.callIn("default", tok, method, path, ctype, body)
}

// callIn is callAs in org.
func (n *node) callIn(org, tok, method, path, ctype string, body []byte) (int, []byte) {
	n.t.Helper()
	req, _ := http.NewRequest(method, "http://"+n.addr+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-Axiom-Org-Id", org)
	req.Header.Set("Content-Type", ctype)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, []byte(err.Error())
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (n *node) mustCall(method, path, ctype string, body []byte) []byte {
	n.t.Helper()
	code, b := n.call(method, path, ctype, body)
	if code/100 != 2 {
		n.t.Fatalf("%s %s %s: %d %s\nnode log:\n%s", n.name, method, path, code, b, n.log.String())
	}
	return b
}

// query returns the first table's columns of a tabular APL answer as JSON.
func (n *node) query(apl string) string {
	n.t.Helper()
	body, _ := json.Marshal(map[string]string{"apl": apl, "startTime": "2000-01-01T00:00:00Z", "endTime": "2100-01-01T00:00:00Z"})
	b := n.mustCall("POST", "/v1/datasets/_apl?format=tabular&nocache=true", "application/json", body)
	var res struct {
		Tables []struct {
			Columns json.RawMessage `json:"columns"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b, &res); err != nil || len(res.Tables) == 0 {
		n.t.Fatalf("%s: %q: bad answer %s", n.name, apl, b)
	}
	return string(res.Tables[0].Columns)
}

func (n *node) count() string { return n.query("['logs'] | count") }

// waitCount polls until the node counts want events.
func (n *node) waitCount(want int) {
	n.t.Helper()
	w := fmt.Sprintf("[[%d]]", want)
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := n.count()
		if got == w {
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("%s counts %s events, want %d\nnode log:\n%s", n.name, got, want, n.log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// queries are checked on every node against the single-node answer.
var queries = []string{
	"['logs'] | count",
	"['logs'] | summarize count() by status | order by status asc",
	"['logs'] | summarize avg(req_duration_ms), max(req_duration_ms), dcount(status) by method | order by method asc",
	// Strings: every node's dcount state must hash a value alike.
	"['logs'] | summarize dcount(uri), dcount(['geo.city']) by server_datacenter | order by server_datacenter asc",
	"['logs'] | summarize percentile(req_duration_ms, 95) by server_datacenter | order by server_datacenter asc",
	"['logs'] | where status >= 500 | summarize count() by bin(_time, 1h) | order by _time asc",
	"['logs'] | top 5 by req_duration_ms desc | project id, req_duration_ms",
	"['logs'] | where uri contains 'buy' | summarize count(), sum(resp_body_size)",
	// Term filters: after compaction a query node reads them from the
	// blocks (the catalog leaves them out).
	"['logs'] | where uri has 'buy' | count",
	"search 'checkout' | count",
}

func checkSame(t *testing.T, ref *node, nodes ...*node) {
	t.Helper()
	for _, q := range queries {
		want := ref.query(q)
		for _, n := range nodes {
			if got := n.query(q); !sameJSON(got, want) {
				t.Errorf("%s: %s\n got %s\nwant %s", n.name, q, got, want)
			}
		}
	}
}

// metric reads a counter from the node's /metrics.
func (n *node) metric(name string) int64 {
	n.t.Helper()
	_, b := n.call("GET", "/metrics", "text/plain", nil)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			var x int64
			fmt.Sscan(v, &x)
			return x
		}
	}
	return 0
}

// One ingest node, two query nodes that share each query's scan, and a
// local single node given the same events answer the same; a query node
// killed leaves the other answering whole (its fragments are scanned
// elsewhere) and comes back with an empty cache; an ingest node killed
// right after acknowledging events loses none and duplicates none, and
// restarted with compaction on merges its blocks; trim reaches the query
// nodes.
func TestCluster(t *testing.T) {
	endpoint := seaweedtest.Start(t)
	root := t.TempDir()
	fast := []string{"-flush-interval", "300ms", "-refresh", "200ms"}
	storage := []string{"-storage", "s3://aplite/cluster"}
	ingest := startNode(t, "ingest", endpoint, filepath.Join(root, "ingest"),
		append(append([]string{"-role", "ingest", "-compact-interval", "1h"}, storage...), fast...)...)
	a1, a2 := seaweedtest.FreeAddr(t), seaweedtest.FreeAddr(t)
	peers := []string{"-role", "query", "-peers", a1 + "," + a2, "-cluster-secret", "s3cret", "-fragment-min-rows", "1"}
	q1 := startNodeAt(t, "query1", a1, endpoint, filepath.Join(root, "q1"), append(append(peers, storage...), fast...)...)
	q2 := startNodeAt(t, "query2", a2, endpoint, filepath.Join(root, "q2"), append(append(peers, storage...), fast...)...)
	single := startNode(t, "single", endpoint, filepath.Join(root, "single"), fast...)

	for _, n := range []*node{ingest, single} {
		n.mustCall("POST", "/v2/datasets", "application/json", []byte(`{"name":"logs"}`))
	}
	if code, b := q1.call("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", []byte("{\"a\":1}\n")); code != 403 {
		t.Errorf("ingest on a query node: %d %s, want 403", code, b)
	}
	if code, _ := q1.call("POST", "/internal/v1/fragment", "application/json", []byte(`{}`)); code != 403 {
		t.Errorf("a fragment without the cluster secret: %d, want 403", code)
	}
	const batches, per = 12, 2000 // a flush each: 12 blocks, so both query nodes own some (rendezvous over random keys)
	for i := 0; i < batches; i++ {
		body := gen.NDJSON(int64(i+1), per)
		for _, n := range []*node{ingest, single} {
			n.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", body)
		}
		time.Sleep(350 * time.Millisecond)
	}
	total := batches * per
	for _, n := range []*node{single, ingest, q1, q2} {
		n.waitCount(total)
	}
	checkSame(t, single, ingest, q1, q2)
	if q1.metric("aplite_fragments_served_total") == 0 || q2.metric("aplite_fragments_served_total") == 0 {
		t.Errorf("fragments served: query1 %d, query2 %d; both should scan their share",
			q1.metric("aplite_fragments_served_total"), q2.metric("aplite_fragments_served_total"))
	}

	t.Run("metadata is shared", func(t *testing.T) {
		b := ingest.mustCall("POST", "/v2/tokens", "application/json",
			[]byte(`{"name":"reader","datasetCapabilities":{"logs":{"query":["read"]}}}`))
		var tok struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal(b, &tok); err != nil || tok.Token == "" {
			t.Fatalf("token: %s", b)
		}
		query := []byte(`{"apl":"['logs'] | count"}`)
		for _, n := range []*node{q1, q2} {
			deadline := time.Now().Add(30 * time.Second)
			for {
				code, body := n.callAs(tok.Token, "POST", "/v1/datasets/_apl?format=tabular", "application/json", query)
				if code == 200 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s never accepted the token made on the ingest node: %d %s", n.name, code, body)
				}
				time.Sleep(200 * time.Millisecond)
			}
		}
		if code, body := q1.call("POST", "/v2/tokens", "application/json", []byte(`{"name":"x"}`)); code != 403 {
			t.Errorf("a token created on a query node: %d %s, want 403", code, body)
		}
		ingest.mustCall("DELETE", "/v2/tokens/"+tokenID(t, b), "application/json", nil)
		deadline := time.Now().Add(30 * time.Second)
		for {
			code, _ := q2.callAs(tok.Token, "POST", "/v1/datasets/_apl?format=tabular", "application/json", query)
			if code == 403 || code == 401 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("query2 still accepts a deleted token: %d", code)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("orgs stay apart", func(t *testing.T) { checkOrgsApart(t, ingest, q1, q2, total) })

	t.Run("query node killed", func(t *testing.T) {
		done := make(chan int, 1)
		go func() {
			body := []byte(`{"apl":"['logs'] | summarize count() by uri, id | count"}`)
			code, _ := q1.call("POST", "/v1/datasets/_apl?format=tabular&nocache=true", "application/json", body)
			done <- code
		}()
		time.Sleep(20 * time.Millisecond)
		q1.kill()
		<-done
		failed := q2.metric("aplite_fragments_failed_total")
		checkSame(t, single, q2) // q1's share is scanned by q2 itself
		if q2.metric("aplite_fragments_failed_total") == failed {
			t.Error("no fragment failed over: did query2 send any to the dead query1?")
		}
		os.RemoveAll(q1.data) // restart with an empty cache
		q1.start()
		checkSame(t, single, q1, q2)
	})

	t.Run("ingest node killed after acknowledging, restarted with compaction", func(t *testing.T) {
		body := gen.NDJSON(99, 3000)
		ingest.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", body)
		single.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", body)
		ingest.kill() // before its flush interval: the rows are only in the WAL
		blocks := countBlocks(t, endpoint)
		ingest.args = append(ingest.args, "-compact-interval", "1s")
		ingest.start()
		total += 3000
		for _, n := range []*node{ingest, q1, q2, single} {
			n.waitCount(total)
		}
		deadline := time.Now().Add(60 * time.Second)
		for ingestBlocks(ingest) >= blocks && time.Now().Before(deadline) {
			time.Sleep(300 * time.Millisecond)
		}
		if n := ingestBlocks(ingest); n >= blocks {
			t.Errorf("compaction left %d blocks of %d", n, blocks)
		}
		time.Sleep(time.Second) // the query nodes' next catalog refresh
		checkSame(t, single, ingest, q1, q2)
	})

	t.Run("trim reaches the query nodes", func(t *testing.T) {
		// The generator's events span one day; keep the last 12 hours of it.
		var cols [][]string
		json.Unmarshal([]byte(single.query("['logs'] | summarize max(_time)")), &cols)
		if len(cols) == 0 || len(cols[0]) == 0 {
			t.Fatal("no max(_time)")
		}
		maxTime, err := time.Parse(time.RFC3339Nano, cols[0][0])
		if err != nil {
			t.Fatal(err)
		}
		cut := time.Since(maxTime.Add(-12 * time.Hour))
		trim := []byte(fmt.Sprintf(`{"maxDuration":"%dms"}`, cut.Milliseconds()))
		ingest.mustCall("POST", "/v1/datasets/logs/trim", "application/json", trim)
		single.mustCall("POST", "/v1/datasets/logs/trim", "application/json", trim)
		untrimmed := fmt.Sprintf("[[%d]]", total)
		deadline := time.Now().Add(60 * time.Second)
		for single.count() == untrimmed || q1.count() != single.count() || q2.count() != single.count() {
			if time.Now().After(deadline) {
				t.Fatalf("after trim: single %s, query1 %s, query2 %s", single.count(), q1.count(), q2.count())
			}
			time.Sleep(200 * time.Millisecond)
		}
		checkSame(t, single, ingest, q1, q2)
	})
}

// countBlocks counts the block objects in the bucket.
func countBlocks(t *testing.T, endpoint string) int {
	resp, err := http.Get(endpoint + "/aplite?list-type=2&prefix=cluster/datasets/logs/blocks/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.Count(string(b), "<Key>")
}

// ingestBlocks is the dataset's block count as the ingest node reports it.
func ingestBlocks(n *node) int {
	_, b := n.call("GET", "/v1/datasets/logs/info", "application/json", nil)
	var info struct {
		NumBlocks int `json:"numBlocks"`
	}
	json.Unmarshal(b, &info)
	return info.NumBlocks
}

// sameJSON compares answers, letting floats differ in the last bits: sums
// taken over differently cut blocks add in another order.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return near(x, y)
}

func near(x, y any) bool {
	switch x := x.(type) {
	case []any:
		ys, ok := y.([]any)
		if !ok || len(x) != len(ys) {
			return false
		}
		for i := range x {
			if !near(x[i], ys[i]) {
				return false
			}
		}
		return true
	case float64:
		yf, ok := y.(float64)
		return ok && math.Abs(x-yf) <= 1e-9*math.Max(1, math.Abs(x))
	}
	return x == y
}
