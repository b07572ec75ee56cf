package cluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/internal/seaweedtest"
)

// cpuSeconds is the user and system CPU a process has used.
func cpuSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

// Ingest with 1, 2 and 3 ingest nodes on one prefix (issue 28's
// figures): 4 clients post bodies of 10,000 real-shaped events round
// robin over the nodes; the window ends when a query node counts every
// event in the bucket. Reports events/s and the ingest nodes' CPU per
// event. On 2 cores more nodes cannot add wall-clock rate; the CPU per
// event says what each writer costs. Run with
// APLITE_MANY_WRITERS_BENCH=1 APLITE_WEED=$(scripts/seaweedfs) go test -run TestManyWritersThroughput -v ./cluster/
func TestManyWritersThroughput(t *testing.T) {
	if os.Getenv("APLITE_MANY_WRITERS_BENCH") == "" {
		t.Skip("a measurement: set APLITE_MANY_WRITERS_BENCH=1")
	}
	const bodies, perBody = 100, 10_000
	payload := make([][]byte, 8)
	for i := range payload {
		payload[i] = gen.NDJSON(int64(i+1), perBody)
	}
	endpoint := seaweedtest.Start(t)
	for nodes := 1; nodes <= 3; nodes++ {
		root := t.TempDir()
		storage := []string{"-storage", fmt.Sprintf("s3://aplite/tp%d", nodes), "-refresh", "500ms"}
		var w []*node
		for i := range nodes {
			w = append(w, startNode(t, fmt.Sprint("ingest", i), endpoint, filepath.Join(root, fmt.Sprint("w", i)),
				append([]string{"-role", "ingest", "-flush-interval", "2s"}, storage...)...))
		}
		createOnPublisher(t, w)
		q := startNode(t, "query", endpoint, filepath.Join(root, "q"), append([]string{"-role", "query"}, storage...)...)
		waitDataset(t, q)
		cpu0 := make([]float64, nodes)
		for i, n := range w {
			cpu0[i] = cpuSeconds(t, n.cmd.Process.Pid)
		}
		start := time.Now()
		var wg sync.WaitGroup
		next := make(chan int, bodies)
		for i := range bodies {
			next <- i
		}
		close(next)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					w[i%nodes].mustCall("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", payload[i%len(payload)])
				}
			}()
		}
		wg.Wait()
		acked := time.Since(start)
		q.waitCount(bodies * perBody)
		all := time.Since(start)
		var cpu float64
		conflicts := 0
		for i, n := range w {
			cpu += cpuSeconds(t, n.cmd.Process.Pid) - cpu0[i]
			conflicts += strings.Count(n.log.String(), "catalog version exists")
		}
		events := float64(bodies * perBody)
		t.Logf("%d ingest nodes: %.0f events/s acknowledged (%.1f s), %.0f events/s in the bucket (%.1f s), ingest CPU %.0f ns/event, %d commit conflicts",
			nodes, events/acked.Seconds(), acked.Seconds(), events/all.Seconds(), all.Seconds(), cpu/events*1e9, conflicts)
		for _, n := range append(w, q) {
			n.kill()
		}
	}
}
