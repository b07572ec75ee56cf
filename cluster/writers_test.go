package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/seaweedtest"
)

// batchRows is how many events one request carries.
const batchRows = 200

// sprayer sends numbered batches to random ingest nodes and remembers
// which were acknowledged (200 with every event ingested).
type sprayer struct {
	mu      sync.Mutex
	nodes   []*node
	acked   map[string]bool
	sent    int
	failed  int
	client  *http.Client
	stopped chan struct{}
}

// body is one batch: every event names its batch and its row.
func batchBody(batch string) []byte {
	var b bytes.Buffer
	for i := range batchRows {
		fmt.Fprintf(&b, `{"batch":%q,"id":"%s-%d","row":%d}`+"\n", batch, batch, i, i)
	}
	return b.Bytes()
}

// send posts one batch to a random node; the answer decides whether it
// was acknowledged. A node killed, stopped or restarting answers late or
// not at all: that batch is not acknowledged (it may still land, once).
func (s *sprayer) send(batch string) {
	s.mu.Lock()
	n := s.nodes[rand.IntN(len(s.nodes))]
	s.sent++
	s.mu.Unlock()
	req, _ := http.NewRequest("POST", "http://"+n.addr+"/v1/datasets/logs/ingest", bytes.NewReader(batchBody(batch)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Axiom-Org-Id", "default")
	req.Header.Set("Content-Type", "application/x-ndjson")
	resp, err := s.client.Do(req)
	ok := false
	if err == nil {
		var st struct {
			Ingested int `json:"ingested"`
		}
		ok = resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&st) == nil && st.Ingested == batchRows
		resp.Body.Close()
	}
	s.mu.Lock()
	if ok {
		s.acked[batch] = true
	} else {
		s.failed++
	}
	s.mu.Unlock()
}

// run sprays from `clients` goroutines until stopped.
func (s *sprayer) run(clients int) *sync.WaitGroup {
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := 0; ; b++ {
				select {
				case <-s.stopped:
					return
				default:
				}
				s.send(fmt.Sprintf("c%d-%d", c, b))
			}
		}()
	}
	return &wg
}

// createOnPublisher creates dataset logs on the ingest node that
// publishes the metadata (the first to take meta/publisher.lease; the
// others answer 503 naming it), as a client behind a load balancer
// would by retrying.
func createOnPublisher(t *testing.T, w []*node) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		for _, n := range w {
			code, body := n.call("POST", "/v2/datasets", "application/json", []byte(`{"name":"logs"}`))
			switch {
			case code == 200:
				return
			case code != 503 || !strings.Contains(string(body), "another ingest node publishes"):
				t.Fatalf("%s: creating the dataset: %d %s", n.name, code, body)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no ingest node took the metadata publisher's lease")
		}
	}
}

// batchCounts is, per batch, how many events a node holds, and how many
// event ids it holds more than once.
func batchCounts(t *testing.T, n *node) (map[string]int, int) {
	t.Helper()
	var rows [][]any
	if err := json.Unmarshal([]byte(n.query("['logs'] | summarize count() by batch")), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("%s: counts by batch: %v %v", n.name, err, rows)
	}
	counts := map[string]int{}
	for i, b := range rows[0] {
		counts[fmt.Sprint(b)] = int(rows[1][i].(float64))
	}
	var dups [][]any
	if err := json.Unmarshal([]byte(n.query("['logs'] | summarize n = count() by id | where n > 1 | count")), &dups); err != nil {
		t.Fatalf("%s: duplicates: %v", n.name, err)
	}
	return counts, int(dups[0][0].(float64))
}

// Three ingest nodes and two query nodes on one prefix, a client
// spraying batches at random ingest nodes; one ingest node is SIGKILLed
// and restarted, another SIGSTOPped and resumed during the run. Both
// query nodes hold every acknowledged event exactly once, and every
// other batch whole or not at all.
func TestManyWriters(t *testing.T) {
	endpoint := seaweedtest.Start(t)
	root := t.TempDir()
	storage := []string{"-storage", "s3://aplite/many", "-refresh", "200ms"}
	ingest := append([]string{"-role", "ingest", "-flush-interval", "500ms", "-lease-ttl", "6s"}, storage...)
	var w []*node
	for i := range 3 {
		w = append(w, startNode(t, fmt.Sprint("ingest", i), endpoint, filepath.Join(root, fmt.Sprint("w", i)), ingest...))
	}
	createOnPublisher(t, w)
	var q []*node
	for i := range 2 {
		q = append(q, startNode(t, fmt.Sprint("query", i), endpoint, filepath.Join(root, fmt.Sprint("q", i)), append([]string{"-role", "query"}, storage...)...))
	}

	s := &sprayer{nodes: w, acked: map[string]bool{}, client: &http.Client{Timeout: 2 * time.Second}, stopped: make(chan struct{})}
	wg := s.run(4)
	time.Sleep(3 * time.Second)
	w[1].kill() // SIGKILL: what it acknowledged is in its WAL only
	stop(t, w[2])
	time.Sleep(3 * time.Second)
	w[1].start() // the same data directory: its slot, its WAL
	time.Sleep(2 * time.Second)
	resume(t, w[2])
	time.Sleep(3 * time.Second)
	close(s.stopped)
	wg.Wait()
	s.mu.Lock()
	acked, sent, failed := len(s.acked), s.sent, s.failed
	s.mu.Unlock()
	t.Logf("sent %d batches of %d events: %d acknowledged, %d not", sent, batchRows, acked, failed)
	if acked < sent/2 || failed == 0 {
		t.Fatalf("%d of %d batches acknowledged, %d failed: the kill and the stop should cost some, not most", acked, sent, failed)
	}

	for _, n := range q {
		deadline := time.Now().Add(30 * time.Second)
		for {
			counts, dups := batchCounts(t, n)
			missing := 0
			for b := range s.acked {
				if counts[b] != batchRows {
					missing++
				}
			}
			if dups > 0 {
				t.Fatalf("%s holds %d event ids more than once", n.name, dups)
			}
			for b, c := range counts {
				if c != batchRows {
					if time.Now().After(deadline) {
						t.Fatalf("%s holds %d events of batch %s, want all %d or none", n.name, c, b, batchRows)
					}
					missing++ // a batch still landing
				}
			}
			if missing == 0 {
				extra := len(counts) - acked
				t.Logf("%s: every acknowledged event once (%d batches), %d unacknowledged batches landed whole", n.name, acked, extra)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s lacks %d acknowledged batches after 30 s\ningest1's log:\n%s", n.name, missing, w[1].log.String())
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
}
