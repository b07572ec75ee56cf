package cluster

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/internal/seaweedtest"
)

// topologyFile holds the arguments deploy/k8s starts each role with;
// deploy/k8s/check (make k8s-check) fails when it differs from the
// manifests.
const topologyFile = "../deploy/k8s/check/testdata/topology.json"

// k8sArgs returns the manifest's arguments for role, without "serve",
// with the pod's addresses and paths replaced by this machine's: -addr
// and -advertise (the pod IP) by addr, -data by data, -ingest (the
// ingest pod's DNS name) by ingest.
func k8sArgs(t *testing.T, role, addr, data, ingest string) []string {
	t.Helper()
	b, err := os.ReadFile(topologyFile)
	if err != nil {
		t.Fatal(err)
	}
	var roles map[string]struct {
		Args []string `json:"args"`
	}
	if err := json.Unmarshal(b, &roles); err != nil || len(roles[role].Args) == 0 || roles[role].Args[0] != "serve" {
		t.Fatalf("%s: no arguments for %s (%v)", topologyFile, role, err)
	}
	var out []string
	for _, a := range roles[role].Args[1:] {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch name {
		case "addr":
			a = "-addr=" + addr
		case "advertise":
			a = "-advertise=" + strings.Replace(a[len("-advertise="):], "$(POD_IP):8080", addr, 1)
		case "data":
			a = "-data=" + data
		case "ingest":
			a = "-ingest=" + ingest
		}
		if strings.Contains(a, "$(") {
			t.Fatalf("%s: %s: %q names a variable this test does not set", topologyFile, role, a)
		}
		out = append(out, a)
	}
	return out
}

// startK8sNode starts role as deploy/k8s does, with the Secret's keys in
// its environment, then the test's own flags (which win).
func startK8sNode(t *testing.T, name, role, endpoint, root, ingest string, extra ...string) *node {
	addr, data := seaweedtest.FreeAddr(t), filepath.Join(root, name)
	n := &node{t: t, name: name, addr: addr, data: data,
		args: append(k8sArgs(t, role, addr, data, ingest), extra...),
		env: append(os.Environ(), "AWS_ENDPOINT_URL="+endpoint, "AWS_ACCESS_KEY_ID=aplite", "AWS_SECRET_ACCESS_KEY=aplite", "AWS_REGION=us-east-1",
			"APLITE_STORAGE=s3://aplite/k8s", "APLITE_CLUSTER_SECRET=s3cret", "APLITE_TOKEN="+token)}
	n.start()
	t.Cleanup(n.kill)
	return n
}

// memberLine is one line of aplite_cluster_member on /metrics.
var memberLine = regexp.MustCompile(`(?m)^aplite_cluster_member\{addr="([^"]+)",role="query"\} 1$`)

// liveQueryNodes returns the query nodes n sees alive in the bucket.
func liveQueryNodes(n *node) []string {
	_, b := n.call("GET", "/metrics", "text/plain", nil)
	var out []string
	for _, m := range memberLine.FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	return out
}

// waitMembers polls until n sees exactly the query nodes want alive.
func waitMembers(t *testing.T, n *node, want ...*node) {
	t.Helper()
	var addrs []string
	for _, w := range want {
		addrs = append(addrs, w.addr)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := liveQueryNodes(n)
		if fmt.Sprint(got) == fmt.Sprint(sortedCopy(addrs)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s sees query nodes %v alive, want %v", n.name, got, sortedCopy(addrs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// queryLoop asks the nodes the queries in turn until stop closes, and
// counts the answers: every one must be the reference's or say it is
// partial.
type queryLoop struct {
	ref               map[string]string
	answered, partial atomic.Int64
	mu                sync.Mutex
	nodes             []*node
	wrong             []string
	stop              chan struct{}
	done              sync.WaitGroup
}

func (l *queryLoop) setNodes(ns ...*node) {
	l.mu.Lock()
	l.nodes = ns
	l.mu.Unlock()
}

func (l *queryLoop) run() {
	defer l.done.Done()
	for i := 0; ; i++ {
		select {
		case <-l.stop:
			return
		default:
		}
		l.mu.Lock()
		n := l.nodes[i%len(l.nodes)]
		l.mu.Unlock()
		q := queries[i%len(queries)]
		body, _ := json.Marshal(map[string]string{"apl": q, "startTime": "2000-01-01T00:00:00Z", "endTime": "2100-01-01T00:00:00Z"})
		code, b := n.call("POST", "/v1/datasets/_apl?format=tabular&nocache=true", "application/json", body)
		var res struct {
			Status queryStatus `json:"status"`
			Tables []struct {
				Columns json.RawMessage `json:"columns"`
			} `json:"tables"`
		}
		switch {
		case code != 200 || json.Unmarshal(b, &res) != nil || len(res.Tables) == 0:
			l.fail(fmt.Sprintf("%s: %s: %d %.300s", n.name, q, code, b))
		case res.Status.IsPartial:
			l.partial.Add(1)
		case !sameJSON(string(res.Tables[0].Columns), l.ref[q]):
			l.fail(fmt.Sprintf("%s: %s: got %.300s, want %.300s", n.name, q, res.Tables[0].Columns, l.ref[q]))
		}
		l.answered.Add(1)
	}
}

func (l *queryLoop) fail(msg string) {
	l.mu.Lock()
	l.wrong = append(l.wrong, msg)
	l.mu.Unlock()
}

// The deploy/k8s topology on loopback, started with the manifests' own
// arguments and the Secret's keys as environment: one ingest node, query
// nodes that find each other by their heartbeats in the bucket. One
// query node first; a second and a third join while queries run, and are
// used; one is SIGKILLed and dropped after its TTL. Every answer
// throughout equals a single node's over the same events, or says it is
// partial.
func TestClusterK8sMembership(t *testing.T) {
	endpoint := seaweedtest.Start(t)
	root := t.TempDir()
	// Blocks of 2,000 events kept apart, so every node owns some; small
	// queries cut into fragments; catalogs reloaded often.
	ingest := startK8sNode(t, "ingest", "ingest", endpoint, root, "",
		"-flush-rows=2000", "-flush-interval=300ms", "-compact-interval=1h")
	fast := []string{"-refresh=200ms", "-fragment-min-rows=1", "-fragment-timeout=3s"}
	q1 := startK8sNode(t, "query1", "query", endpoint, root, ingest.addr, fast...)
	single := startNode(t, "single", endpoint, filepath.Join(root, "single"), "-flush-interval=300ms")

	for _, n := range []*node{ingest, single} {
		n.mustCall("POST", "/v2/datasets", "application/json", []byte(`{"name":"logs"}`))
	}
	const batches, per = 12, 2000
	for i := range batches {
		body := gen.NDJSON(int64(i+1), per)
		for _, n := range []*node{ingest, single} {
			n.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", body)
		}
	}
	waitDataset(t, q1)
	for _, n := range []*node{single, q1} {
		n.waitCount(batches * per)
	}
	waitMembers(t, q1, q1)
	loop := &queryLoop{ref: map[string]string{}, stop: make(chan struct{})}
	for _, q := range queries {
		loop.ref[q] = single.query(q)
	}
	loop.setNodes(q1)
	loop.done.Add(1)
	go loop.run()
	defer func() {
		select {
		case <-loop.stop:
		default:
			close(loop.stop)
			loop.done.Wait()
		}
	}()

	q2 := startK8sNode(t, "query2", "query", endpoint, root, ingest.addr, fast...)
	q3 := startK8sNode(t, "query3", "query", endpoint, root, ingest.addr, fast...)
	waitMembers(t, q1, q1, q2, q3)
	loop.setNodes(q1, q3)
	for deadline := time.Now().Add(20 * time.Second); q2.metric("aplite_fragments_served_total") == 0 || q3.metric("aplite_fragments_served_total") == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the joined nodes served %d and %d fragments: not used", q2.metric("aplite_fragments_served_total"), q3.metric("aplite_fragments_served_total"))
		}
	}

	failedBefore := q1.metric("aplite_fragments_failed_total") + q3.metric("aplite_fragments_failed_total")
	answeredBefore := loop.answered.Load()
	q2.kill()
	waitMembers(t, q1, q1, q3) // after its TTL
	waitMembers(t, q3, q1, q3)
	for deadline := time.Now().Add(10 * time.Second); loop.answered.Load() < answeredBefore+2*int64(len(queries)); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d answers after the kill", loop.answered.Load()-answeredBefore)
		}
	}
	close(loop.stop)
	loop.done.Wait()
	failed := q1.metric("aplite_fragments_failed_total") + q3.metric("aplite_fragments_failed_total") - failedBefore
	t.Logf("%d answers (%d after the kill, %d partial); %d fragments sent to the killed node were run elsewhere",
		loop.answered.Load(), loop.answered.Load()-answeredBefore, loop.partial.Load(), failed)
	if len(loop.wrong) > 0 {
		t.Errorf("%d answers neither right nor partial; the first: %s", len(loop.wrong), strings.Join(loop.wrong[:min(5, len(loop.wrong))], "\n"))
	}
	if failed == 0 {
		t.Error("no fragment failed over between the kill and the TTL: did the nodes send any to the killed one?")
	}
	checkSame(t, single, q1, q3)
}
