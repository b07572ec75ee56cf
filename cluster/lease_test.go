package cluster

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/internal/seaweedtest"
)

// One writer per slot: a second ingest node (or a -role all node) on a
// copy of a writer's data directory (its slot) is refused at start,
// naming the holder; a writer paused past its lease is taken over, and
// once resumed it refuses ingest with 503 naming the new holder and
// writes nothing to the bucket; a query node counts every acknowledged
// event exactly once; a writer that exits cleanly lets the next start at
// once. (Ingest nodes with data directories of their own each write a
// slot of their own: TestManyWriters.)
func TestWriterLease(t *testing.T) {
	endpoint := seaweedtest.Start(t)
	root := t.TempDir()
	writer := []string{"-role", "ingest", "-storage", "s3://aplite/lease", "-flush-interval", "200ms",
		"-compact-interval", "1h", "-lease-ttl", "6s"}
	w1 := startNode(t, "writer1", endpoint, filepath.Join(root, "w1"), writer...)
	w1.mustCall("POST", "/v2/datasets", "application/json", []byte(`{"name":"logs"}`))
	w1.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(1, 1000))
	q := startNode(t, "query", endpoint, filepath.Join(root, "q"), "-role", "query", "-storage", "s3://aplite/lease", "-refresh", "200ms")
	waitDataset(t, q)
	q.waitCount(1000)

	holder1 := fmt.Sprintf("pid %d", w1.cmd.Process.Pid)
	for _, role := range []string{"ingest", "all"} {
		args := slices.Clone(writer)
		args[1] = role
		out, started, _ := tryWriter(t, endpoint, sameSlot(t, w1, filepath.Join(root, "second-"+role)), args)
		if started != nil {
			t.Fatalf("a second -role %s writer on the prefix started; writer1's log:\n%s", role, w1.log.String())
		}
		if !strings.Contains(out, "holds it until") || !strings.Contains(out, holder1) {
			t.Errorf("a second -role %s writer's refusal does not name the holder (%s) and its expiry:\n%s", role, holder1, out)
		}
	}

	// Paused past its lease, writer1 is taken over by writer2.
	if err := w1.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var w2 *node
	var w2exited chan struct{}
	deadline := time.Now().Add(20 * time.Second)
	// writer2 publishes no tail: the bucket must not change while the
	// fenced writer1 runs again (its own tail included), and writer2's
	// tail would (its segments, the deletion of writer1's a minute on).
	w2args := append(slices.Clone(writer), "-tail", "0")
	for w2 == nil {
		out, n, exited := tryWriter(t, endpoint, sameSlot(t, w1, filepath.Join(root, "w2")), w2args)
		if n != nil {
			w2, w2exited = n, exited
			break
		}
		if !strings.Contains(out, holder1) || time.Now().After(deadline) {
			t.Fatalf("writer2 refused, not naming writer1 (%s) or past the lease's expiry:\n%s", holder1, out)
		}
		time.Sleep(300 * time.Millisecond) // the lease expires 6 s after writer1's last renewal
	}
	w2.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(2, 1000))
	q.waitCount(2000)
	before := bucketKeys(t, endpoint, "lease/")

	if err := w1.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	code, body := w1.call("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(3, 1000))
	holder2 := fmt.Sprintf(":%d:", w2.cmd.Process.Pid)
	if code != 503 || !strings.Contains(string(body), "lost the write lease") || !strings.Contains(string(body), holder2) {
		t.Errorf("ingest on the fenced writer1: %d %s, want 503 naming writer2 (%s)", code, body, holder2)
	}
	if code, body := w1.call("POST", "/v2/datasets", "application/json", []byte(`{"name":"other"}`)); code != 503 {
		t.Errorf("a dataset created on the fenced writer1: %d %s, want 503", code, body)
	}
	// A token made on writer1 changes its local metadata only.
	w1.call("POST", "/v2/tokens", "application/json", []byte(`{"name":"fenced"}`))
	term(t, w1, nil) // its final flush and metadata publish must not reach the bucket
	if !strings.Contains(w1.log.String(), "lost the write lease") {
		t.Errorf("writer1's log does not say it lost the lease:\n%s", w1.log.String())
	}
	if after := bucketKeys(t, endpoint, "lease/"); !slices.Equal(withoutLease(before), withoutLease(after)) {
		t.Errorf("the fenced writer1 changed the bucket:\nbefore %v\nafter  %v", before, after)
	}
	if got := q.count(); got != "[[2000]]" {
		t.Errorf("the query node counts %s events, want the 2000 acknowledged", got)
	}

	// A clean exit releases the lease: the next writer starts at once.
	term(t, w2, w2exited)
	out, w3, _ := tryWriter(t, endpoint, sameSlot(t, w1, filepath.Join(root, "w3")), writer)
	if w3 == nil {
		t.Fatalf("a writer after writer2 exited cleanly was refused:\n%s", out)
	}
	w3.mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", gen.NDJSON(4, 500))
	q.waitCount(2500)
}

// tryWriter starts `aplite serve` with args on dir: the running node, or
// nil and its output when it exited (refused) instead of serving;
// exited is closed when the running node exits.
func tryWriter(t *testing.T, endpoint, dir string, args []string) (out string, n *node, exited chan struct{}) {
	t.Helper()
	n = &node{t: t, name: filepath.Base(dir), addr: seaweedtest.FreeAddr(t), data: dir, args: args,
		env: append(os.Environ(), "AWS_ENDPOINT_URL="+endpoint, "AWS_ACCESS_KEY_ID=aplite", "AWS_SECRET_ACCESS_KEY=aplite", "AWS_REGION=us-east-1")}
	all := append([]string{"serve", "-addr", n.addr, "-data", n.data, "-token", token}, args...)
	n.cmd = exec.Command(binary, all...)
	n.cmd.Env = n.env
	n.log = &bytes.Buffer{}
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan struct{})
	go func() { n.cmd.Wait(); close(exited) }()
	for range 400 {
		select {
		case <-exited:
			if n.cmd.ProcessState.ExitCode() == 0 {
				t.Fatalf("%s exited 0 without serving:\n%s", n.name, n.log.String())
			}
			return n.log.String(), nil, nil
		default:
		}
		// serve binds its address before it opens the store: only an
		// answer says it serves.
		if resp, err := healthClient.Get("http://" + n.addr + "/health"); err == nil {
			resp.Body.Close()
			cmd := n.cmd
			t.Cleanup(func() { cmd.Process.Kill(); <-exited })
			return "", n, exited
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.cmd.Process.Kill()
	<-exited
	t.Fatalf("%s neither served nor exited:\n%s", n.name, n.log.String())
	return "", nil, nil
}

var healthClient = &http.Client{Timeout: time.Second}

// term stops n as an operator would (SIGTERM: finish, flush, release)
// and waits for it; exited is tryWriter's, nil for a startNode node.
func term(t *testing.T, n *node, exited chan struct{}) {
	t.Helper()
	if exited == nil {
		exited = make(chan struct{})
		go func() { n.cmd.Wait(); close(exited) }()
	}
	n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not exit within 30 s of SIGTERM:\n%s", n.name, n.log.String())
	}
	n.cmd = nil // nothing left for the cleanup to kill
}

// withoutLease drops the leases (a slot's writer lease, the metadata
// publisher's), which their holders rewrite.
func withoutLease(keys []string) []string {
	return slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return strings.HasSuffix(k, ".lease") })
}

// sameSlot makes dir a data directory naming n's writer slot: n's data
// directory copied to another machine.
func sameSlot(t *testing.T, n *node, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(n.data, "writer-slot"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "writer-slot"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// bucketKeys lists the keys under prefix in the test bucket.
func bucketKeys(t *testing.T, endpoint, prefix string) []string {
	t.Helper()
	resp, err := http.Get(endpoint + "/" + seaweedtest.Bucket + "?list-type=2&prefix=" + prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var keys []string
	for _, part := range strings.Split(string(b), "<Key>")[1:] {
		keys = append(keys, part[:strings.Index(part, "</Key>")])
	}
	slices.Sort(keys)
	return keys
}
