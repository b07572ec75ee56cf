package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/seaweedtest"
)

// BenchmarkQueryNodes measures what a second query node buys: the seven
// reference queries sent to a query node that scans everything itself,
// then to one that shares each scan with a second node (-peers), over the
// same bucket. It reports wall time and the CPU time each node process
// spent per query (from /proc), so the split of the work shows even on
// two cores where the wall clock cannot improve much. The ingest node
// runs without compaction, so the events stay in blocks of at most 256K
// rows that can be spread (1M events, or 10M with APLITE_BENCH_10M=1).
// Needs APLITE_WEED.
func BenchmarkQueryNodes(b *testing.B) {
	endpoint := seaweedtest.Start(b)
	bin := buildAplite(b)
	root := b.TempDir()
	sizes := querySizes()
	n := sizes[len(sizes)-1] // 10M with APLITE_BENCH_10M=1
	env := append(os.Environ(), "AWS_ENDPOINT_URL="+endpoint, "AWS_ACCESS_KEY_ID=b", "AWS_SECRET_ACCESS_KEY=b", "AWS_REGION=us-east-1")
	storage := []string{"-storage", "s3://" + seaweedtest.Bucket + "/nodes", "-refresh", "200ms"}
	ing := startProc(b, bin, env, filepath.Join(root, "ingest"), seaweedtest.FreeAddr(b),
		append([]string{"-role", "ingest", "-compact-interval", "1h"}, storage...)...)
	ing.post(b, "/v2/datasets", []byte(`{"name":"`+queryDataset+`"}`))
	g := newGen(1, n) // benchShape: Real unless APLITE_BENCH_SHAPE says otherwise
	for done := 0; done < n; done += fixtureChunk {
		k := min(fixtureChunk, n-done)
		ing.post(b, "/v1/datasets/"+queryDataset+"/ingest", g.AppendNDJSON(make([]byte, 0, k*400), k))
	}
	a1, a2 := seaweedtest.FreeAddr(b), seaweedtest.FreeAddr(b)
	peers := []string{"-role", "query", "-peers", a1 + "," + a2, "-cluster-secret", "bench", "-fragment-min-rows", "1"}
	alone := startProc(b, bin, env, filepath.Join(root, "alone"), seaweedtest.FreeAddr(b), append([]string{"-role", "query"}, storage...)...)
	q1 := startProc(b, bin, env, filepath.Join(root, "q1"), a1, append(peers, storage...)...)
	q2 := startProc(b, bin, env, filepath.Join(root, "q2"), a2, append(peers, storage...)...)
	for _, p := range []*proc{alone, q1, q2} {
		p.waitCount(b, n)
	}
	for _, q := range benchQueries {
		b.Run("1node/"+q.id, func(b *testing.B) { timeNodes(b, q, alone, alone) })
		b.Run("2nodes/"+q.id, func(b *testing.B) { timeNodes(b, q, q1, q1, q2) })
	}
}

// timeNodes sends q to target b.N times (after one warm-up run that fills
// the caches) and reports wall p50 and CPU ms per query of every node.
func timeNodes(b *testing.B, q benchQuery, target *proc, nodes ...*proc) {
	body, _ := json.Marshal(map[string]string{"apl": q.apl()})
	path := "/v1/datasets/_apl?format=tabular&nocache=true"
	target.post(b, path, body)
	cpu0 := make([]time.Duration, len(nodes))
	for i, p := range nodes {
		cpu0[i] = p.cpu(b)
	}
	var lat []time.Duration
	for b.Loop() {
		began := time.Now()
		target.post(b, path, body)
		lat = append(lat, time.Since(began))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	for i, p := range nodes {
		if i > 0 && p == nodes[0] {
			continue
		}
		b.ReportMetric(float64((p.cpu(b)-cpu0[i]).Microseconds())/1000/float64(len(lat)), fmt.Sprintf("node%d-cpu-ms/op", i+1))
	}
}

type proc struct {
	addr string
	cmd  *exec.Cmd
	log  *bytes.Buffer
}

func buildAplite(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "aplite")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		b.Fatalf("build: %s", out)
	}
	return bin
}

func startProc(b *testing.B, bin string, env []string, data, addr string, args ...string) *proc {
	p := &proc{addr: addr, log: &bytes.Buffer{}}
	p.cmd = exec.Command(bin, append([]string{"serve", "-addr", addr, "-data", data, "-token", "xapt-bench-nodes"}, args...)...)
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatalf("node did not start: %s", p.log)
	return nil
}

func (p *proc) post(b *testing.B, path string, body []byte) []byte {
	req, _ := http.NewRequest("POST", "http://"+p.addr+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer xapt-bench-nodes")
	req.Header.Set("X-Axiom-Org-Id", "default")
	req.Header.Set("Content-Type", "application/x-ndjson")
	if strings.HasPrefix(path, "/v2") || strings.Contains(path, "_apl") {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.Fatalf("%s: %d %s\n%s", path, resp.StatusCode, out, p.log)
	}
	return out
}

func (p *proc) waitCount(b *testing.B, n int) {
	body, _ := json.Marshal(map[string]string{"apl": "['" + queryDataset + "'] | count"})
	want := fmt.Sprintf("[[%d]]", n)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if strings.Contains(string(p.post(b, "/v1/datasets/_apl?format=tabular&nocache=true", body)), want) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("node %s never counted %d events", p.addr, n)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// cpu is the process's user+system CPU time so far.
func (p *proc) cpu(b *testing.B) time.Duration {
	d, err := pidCPU(p.cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	return d
}
