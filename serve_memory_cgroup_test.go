package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Eight heavy queries of each shape at once, and eight large ingest
// requests, against the built binary in a real memory cgroup, a fresh
// server for each shape: the server is not killed, every answer is 200
// or a 4xx with a message, and its peak RSS stays within the memory
// budget plus 10%. The light run (1 GiB cgroup, scaled queries) is part of the
// tests; APLITE_GOV_HEAVY=1 runs the 4 GiB one with 1 MB queries (give
// it -timeout 30m: on a loaded machine a shape takes minutes), and
// APLITE_GOV_BIN=/path measures another binary (an older aplite) with the
// same queries: it prints each shape's peak either way, and
// APLITE_GOV_SHAPES="sort, wide;summarize" runs only the shapes named.
// In the heavy run every shape peaks at 1.8-2.4 GB for a 2.4 GB budget
// (summarize and mv-expand: 3.4-4.1 GB before their states, keys and
// batches were charged; "sort, wide": 2.6-3.2 GB before mv-expand handed
// its rows on in pieces; the ingest shape 2.2 GB).
func TestServeMemoryBudgetInCgroup(t *testing.T) {
	const cgroups = "/sys/fs/cgroup/memory"
	// The parser refuses or-chains of over 1,000 terms (400): the or
	// shape is the longest it takes.
	limit, terms, rows, wide, body := int64(1<<30), 20000, 300, 300, 12<<20
	if os.Getenv("APLITE_GOV_HEAVY") != "" {
		limit, terms, rows, wide, body = 4<<30, 80000, 8000, 1000, 96<<20
	}
	cg := filepath.Join(cgroups, fmt.Sprintf("aplite-gov-%d", os.Getpid()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Skipf("memory cgroups (v1, %s) are not writable here: %v", cgroups, err)
	}
	t.Cleanup(func() { os.Remove(cg) }) // after the server is killed (cleanups run last first)
	if err := os.WriteFile(filepath.Join(cg, "memory.limit_in_bytes"), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		t.Skipf("cannot limit the cgroup: %v", err)
	}
	budget := limit * 6 / 10 // DefaultBudgetShare, read by the server itself
	exe := bin
	if b := os.Getenv("APLITE_GOV_BIN"); b != "" {
		exe = b
	}
	shapes := map[string]string{
		"or":         "m | where " + joinTerms(400, " or ", "a == %d") + " | count",
		"in":         "m | where s in (" + joinTerms(terms, ",", `"y%d"`) + ") | count",
		"mv-expand":  "m | extend r = range(1, 1500 + a * 0) | mv-expand r | summarize count() by a, r | count",
		"summarize":  "m | extend r = range(1, 1000 + a * 0) | mv-expand r | summarize make_list(r), dcount(r) by a, tostring(r) | count",
		"sort, wide": fmt.Sprintf("m | extend r = range(1, %d + a * 0) | mv-expand r | extend w = strcat(s, '-', tostring(r), '-', s, '-', s) | order by w desc | take 5", wide),
		"ingest":     "", // eight ingest requests of body bytes each
	}
	only := os.Getenv("APLITE_GOV_SHAPES") // a subset, by name, separated by ";" ("sort, wide;summarize")
	for name, apl := range shapes {
		if only != "" && !slices.Contains(strings.Split(only, ";"), name) {
			continue
		}
		// A server of its own for each shape: its peak is the shape's,
		// not what the heap of the shape before kept from the OS.
		srv := startInCgroup(t, exe, cg)
		srv.ingest(t, rows)
		srv.resetPeak(t)
		began := time.Now()
		var codes map[int]int
		what := fmt.Sprintf("%d bytes of APL", len(apl))
		if apl == "" {
			codes = srv.ingestStorm(t, body, 8)
			what = fmt.Sprintf("%d MB bodies", body>>20)
		} else {
			codes = srv.storm(t, apl, 8)
		}
		peak := srv.peakRSS(t)
		t.Logf("%s (%s): answers %v in %v, peak RSS %d MB (reserved at most %s); budget %d MB in a %d MB cgroup",
			name, what, codes, time.Since(began).Round(time.Millisecond), peak>>20, srv.metric("aplite_query_memory_reserved_peak_bytes"), budget>>20, limit>>20)
		if peak > budget+budget/10 {
			t.Errorf("%s: peak RSS %d MB is over the budget %d MB + 10%%", name, peak>>20, budget>>20)
		}
		srv.stop()
	}
}

// ingestStorm sends n NDJSON bodies of about size bytes at once to
// dataset m and checks every answer: 200, or a 4xx with a message (call
// checks a 429's Retry-After); the server must still be running after.
func (s *cgroupServer) ingestStorm(t *testing.T, size, n int) map[int]int {
	var nd strings.Builder
	nd.Grow(size + 200)
	for i := 0; nd.Len() < size; i++ {
		fmt.Fprintf(&nd, `{"a":%d,"s":"z%d","t":"%s"}`+"\n", i, i, strings.Repeat("t", 60))
	}
	body := nd.String()
	codes := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, msg, err := s.call("/v1/datasets/m/ingest", body, "application/x-ndjson")
			mu.Lock()
			defer mu.Unlock()
			codes[code]++
			if code != 200 && codes[code] == 1 {
				t.Logf("first %d: %.200s", code, msg)
			}
			switch {
			case err != nil:
				t.Errorf("ingest: %v (server log: %s)", err, s.log)
			case code != 200 && (code < 400 || code > 499 || !strings.Contains(msg, `"message"`)):
				// 429 when the pool is full; on a loaded machine also 408,
				// the server's read timeout on a large body.
				t.Errorf("ingest answered %d without a message: %.300s", code, msg)
			}
		}()
	}
	wg.Wait()
	s.alive(t)
	return codes
}

// metric is the value of a gauge on /metrics, as text ("?" if absent:
// an older binary).
func (s *cgroupServer) metric(name string) string {
	r, err := http.Get("http://" + s.addr + "/metrics")
	if err != nil {
		return "?"
	}
	defer r.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(r.Body)
	for _, line := range strings.Split(b.String(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return fmt.Sprintf("%d MB", n>>20)
			}
		}
	}
	return "?"
}

// resetPeak starts the server's VmHWM again from its current RSS, so that
// each shape's peak is its own (what the shape before left in the heap
// still counts: the process holds it).
func (s *cgroupServer) resetPeak(t *testing.T) {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.cmd.Process.Pid), []byte("5"), 0o644); err != nil {
		t.Logf("cannot reset the peak RSS (%v): each shape's peak includes the ones before", err)
	}
}

func joinTerms(n int, sep, format string) string {
	terms := make([]string, n)
	for i := range terms {
		terms[i] = fmt.Sprintf(format, i)
	}
	return strings.Join(terms, sep)
}

// cgroupServer is an aplite serve child process inside a memory cgroup.
type cgroupServer struct {
	cmd     *exec.Cmd
	addr    string
	log     *bytes.Buffer
	done    chan error
	started bool
	stopped sync.Once
}

// stop kills the server and waits for it to exit; it may be called more
// than once.
func (s *cgroupServer) stop() {
	s.stopped.Do(func() {
		if s.started {
			s.cmd.Process.Kill()
			<-s.done
		}
	})
}

// alive fails the test if the server has exited.
func (s *cgroupServer) alive(t *testing.T) {
	select {
	case err := <-s.done:
		s.done <- err
		t.Fatalf("the server died (%v): %s", err, s.log)
	default:
	}
}

const cgroupToken = "xapt-govtest000000000000000000001"

// startInCgroup starts exe serve with its pid in the cgroup before it
// runs (a shell writes its own pid, then execs), so the server reads the
// cgroup's limit for its default budget and every page it touches counts.
func startInCgroup(t *testing.T, exe, cg string) *cgroupServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &cgroupServer{addr: addr, log: &bytes.Buffer{}, done: make(chan error, 1)}
	t.Cleanup(s.stop)
	script := fmt.Sprintf(`echo $$ > %s/cgroup.procs && exec "$0" serve -addr %s -data %s -token %s -query-timeout 60s`, cg, addr, t.TempDir(), cgroupToken)
	s.cmd = exec.Command("sh", "-c", script, exe)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	s.started = true
	for began := time.Now(); ; {
		if r, err := http.Get("http://" + addr + "/health"); err == nil {
			r.Body.Close()
			return s
		}
		if time.Since(began) > 20*time.Second {
			t.Fatalf("server did not start: %s", s.log)
		}
		time.Sleep(50 * time.Millisecond) // polling for the port to open
	}
}

func (s *cgroupServer) call(path, body string, contentType string) (int, string, error) {
	req, err := http.NewRequest("POST", "http://"+s.addr+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+cgroupToken)
	req.Header.Set("X-Axiom-Org-Id", "default")
	req.Header.Set("Content-Type", contentType)
	r, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer r.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(r.Body)
	if r.StatusCode == 429 && r.Header.Get("Retry-After") == "" {
		return r.StatusCode, b.String(), fmt.Errorf("429 without Retry-After: %s", b.String())
	}
	return r.StatusCode, b.String(), nil
}

func (s *cgroupServer) ingest(t *testing.T, rows int) {
	if code, body, err := s.call("/v2/datasets", `{"name":"m"}`, "application/json"); err != nil || code != 200 {
		t.Fatalf("create: %d %s %v", code, body, err)
	}
	var nd strings.Builder
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&nd, `{"a":%d,"s":"x%d"}`+"\n", i, i)
	}
	if code, body, err := s.call("/v1/datasets/m/ingest", nd.String(), "application/x-ndjson"); err != nil || code != 200 {
		t.Fatalf("ingest: %d %s %v", code, body, err)
	}
}

// storm sends n copies of apl at once and checks every answer: 200, or a
// 4xx whose body says why; the server must still be running after.
func (s *cgroupServer) storm(t *testing.T, apl string, n int) map[int]int {
	body, _ := json.Marshal(map[string]any{"apl": apl, "startTime": "2000-01-01T00:00:00Z", "endTime": "2100-01-01T00:00:00Z"})
	codes := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, msg, err := s.call("/v1/datasets/_apl?format=tabular&nocache=true", string(body), "application/json")
			mu.Lock()
			defer mu.Unlock()
			codes[code]++
			if code != 200 && codes[code] == 1 {
				t.Logf("first %d: %.200s", code, msg)
			}
			switch {
			case err != nil:
				t.Errorf("query: %v (server log: %s)", err, s.log)
			case code != 200 && (code < 400 || code > 499 || !strings.Contains(msg, `"message"`)):
				t.Errorf("answer %d without a message: %.300s", code, msg)
			}
		}()
	}
	wg.Wait()
	s.alive(t)
	return codes
}

// peakRSS is the server's VmHWM.
func (s *cgroupServer) peakRSS(t *testing.T) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
