package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bin is the aplite binary built once for the command-line tests, which
// check the contract in ../shared/spec/cli.md as outside scripts use it.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aplite-cli")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "aplite")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// aplite runs the binary with stdin and returns stdout, stderr and the
// exit code.
func aplite(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestQueryFormats(t *testing.T) {
	in := "logs=" + filepath.Join("testdata", "fixtures", "http-logs.ndjson")
	out, stderr, code := aplite(t, "", "query", "-in", in, "-format", "json", "logs | summarize n = count() by method | sort by method asc")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		Format string `json:"format"`
		Tables []struct {
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Format != "tabular" || len(res.Tables[0].Columns) != 2 {
		t.Fatalf("json output: %v\n%s", err, out)
	}
	// The query may also come from standard input; flags may follow it.
	out, _, code = aplite(t, "logs | count", "query", "-in", in, "-", "-format", "csv")
	if code != 0 || out != "count\n200\n" {
		t.Errorf("csv from stdin: exit %d %q", code, out)
	}
	out, _, _ = aplite(t, "", "query", "-format", "ndjson", "print a = 1, b = 'x'")
	if strings.TrimSpace(out) != `{"a":1,"b":"x"}` {
		t.Errorf("ndjson: %q", out)
	}
	out, _, _ = aplite(t, "", "query", "print a = 1")
	if !strings.Contains(out, "a") || !strings.Contains(out, "1") {
		t.Errorf("table: %q", out)
	}
}

func TestQueryErrors(t *testing.T) {
	_, stderr, code := aplite(t, "", "query", "print x = = 1")
	if code != 1 || !strings.HasPrefix(stderr, "1:") {
		t.Errorf("syntax error: exit %d, stderr %q (want exit 1 and line:col)", code, stderr)
	}
	_, stderr, code = aplite(t, "", "query", "datatable(a:long)[1] | where b > 1")
	if code != 1 || !strings.Contains(stderr, "1:30:") {
		t.Errorf("semantic error: exit %d, stderr %q", code, stderr)
	}
}

func TestFmtAndVersion(t *testing.T) {
	out, _, code := aplite(t, "logs|where x>1|take 3", "fmt")
	if code != 0 || !strings.Contains(out, "| where x > 1") {
		t.Errorf("fmt: exit %d %q", code, out)
	}
	again, _, _ := aplite(t, out, "fmt")
	if again != out {
		t.Errorf("fmt is not idempotent:\n%s\n%s", out, again)
	}
	if _, stderr, code := aplite(t, "logs | where (", "fmt"); code != 1 || !strings.Contains(stderr, ":") {
		t.Errorf("fmt error: exit %d %q", code, stderr)
	}
	if out, _, code := aplite(t, "", "version"); code != 0 || !strings.HasPrefix(out, "aplite ") {
		t.Errorf("version: %q", out)
	}
}

// A port already in use fails at once with a message that says so.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan struct{})
	var stderr string
	var code int
	go func() {
		_, stderr, code = aplite(t, "", "serve", "-addr", ln.Addr().String(), "-data", t.TempDir(), "-token", "xapt-cli-test")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not fail on a port in use")
	}
	if code == 0 || !strings.Contains(stderr, "in use") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
