package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// served is an `aplite serve` process whose log lines the test reads as
// they come.
type served struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	seen  []string
}

// startServe runs `aplite serve ARGS` and returns once it logs that it
// listens.
func startServe(t *testing.T, args ...string) *served {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{t: t, cmd: cmd, lines: make(chan string, 256)}
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	s.waitFor("listening on")
	return s
}

// waitFor returns the first log line from now on that contains sub.
func (s *served) waitFor(sub string) string {
	s.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.t.Fatalf("the server exited before logging %q; it logged:\n%s", sub, strings.Join(s.seen, "\n"))
			}
			s.seen = append(s.seen, line)
			if strings.Contains(line, sub) {
				return line
			}
		case <-deadline:
			s.t.Fatalf("no log line with %q in 30 s; logged:\n%s", sub, strings.Join(s.seen, "\n"))
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// A second server on a running one's data directory, or on its address,
// is refused at once, naming the aplite that holds it, and creates
// nothing; a port another program holds names that program.
func TestServeRefusesABusyDataDirOrAddress(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the holder of a lock or a port is looked up on Linux only (cmd_serve_holder_linux.go)")
	}
	data, addr := t.TempDir(), freeAddr(t)
	first := startServe(t, "-addr", addr, "-data", data, "-token", "xapt-preflight")
	pid := first.cmd.Process.Pid

	began := time.Now()
	_, stderr, code := aplite(t, "", "serve", "-addr", freeAddr(t), "-data", data)
	want := fmt.Sprintf("data directory %s is in use by another aplite (pid %d)", data, pid)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("same data directory: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	t.Logf("refused in %s", time.Since(began))

	fresh := filepath.Join(t.TempDir(), "new")
	_, stderr, code = aplite(t, "", "serve", "-addr", addr, "-data", fresh)
	want = fmt.Sprintf("address %s is in use by another aplite (pid %d)", addr, pid)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("same address: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("the refused server created its data directory (%v)", err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, stderr, code = aplite(t, "", "serve", "-addr", ln.Addr().String(), "-data", fresh)
	want = fmt.Sprintf("address %s is in use by pid %d", ln.Addr(), os.Getpid())
	if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "another aplite") {
		t.Fatalf("port of another program: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("the refused server created its data directory (%v)", err)
	}
}

// The log says where the server listens and what it serves; a restart
// after a crash says it kept the events not yet in blocks; SIGTERM says
// it flushes, and exits 0. With -log-format json every line is JSON.
func TestServeLogsStartRestartAndStop(t *testing.T) {
	data, addr := t.TempDir(), freeAddr(t)
	tok := "xapt-lifecycle-log"
	s := startServe(t, "-addr", addr, "-data", data, "-token", tok, "-log-format", "json")
	if !strings.Contains(strings.Join(s.seen, "\n"), `"msg":"aplite starting"`) {
		t.Fatalf("no start-up line:\n%s", strings.Join(s.seen, "\n"))
	}
	ingest := func() {
		req, _ := http.NewRequest("POST", "http://"+addr+"/v1/datasets/logs/ingest", strings.NewReader("{\"a\":1}\n{\"a\":2}\n"))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("X-Axiom-Org-Id", "default")
		req.Header.Set("Content-Type", "application/x-ndjson")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("ingest: %d %s", resp.StatusCode, b)
		}
	}
	create, _ := http.NewRequest("POST", "http://"+addr+"/v2/datasets", strings.NewReader(`{"name":"logs"}`))
	create.Header.Set("Authorization", "Bearer "+tok)
	create.Header.Set("X-Axiom-Org-Id", "default")
	if resp, err := http.DefaultClient.Do(create); err != nil || resp.StatusCode != 200 {
		t.Fatalf("create: %v %v", resp, err)
	}
	ingest()
	s.cmd.Process.Kill() // a crash: the events are in the WAL only
	s.cmd.Wait()

	s = startServe(t, "-addr", addr, "-data", data, "-token", tok, "-log-format", "json")
	log := strings.Join(s.seen, "\n")
	for _, want := range []string{`replayed 1 WAL records (2 events) not yet in blocks`, `"restart":true`,
		`"msg":"restarted on an existing data directory","datasets":1,"events":2`, `"msg":"listening on ` + addr + `"`} {
		if !strings.Contains(log, want) {
			t.Errorf("restart log lacks %q:\n%s", want, log)
		}
	}
	for _, line := range s.seen {
		if !strings.HasPrefix(line, "{") {
			t.Errorf("not a JSON line: %q", line)
		}
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.waitFor(`"msg":"stopping: finishing in-flight requests`)
	s.waitFor(`"msg":"stopped: every acknowledged event is in the data directory"`)
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}
