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
	// The missing operand is reported where it is missing (it was 1:7,
	// `expected "|"`, on the 1).
	_, stderr, code = aplite(t, "", "query", "print 1 +")
	if code != 1 || stderr != "1:10: expected an operand after \"+\", found end of input\n" {
		t.Errorf("print 1 +: exit %d, stderr %q", code, stderr)
	}
	// A misspelt name is told the nearest known one: a field, a
	// function, a file's dataset read in place or loaded.
	in := "logs=" + filepath.Join("testdata", "fixtures", "http-logs.ndjson")
	for _, c := range [][]string{
		{"print abc = 1 | where abd > 0", `1:23: unknown field or variable "abd" (did you mean 'abc'?)`},
		{"print x = strlenn('a')", `1:11: unknown function "strlenn" (did you mean 'strlen'?)`},
		{"-in", in, "lgos | where status > 200 | count", `1:1: unknown dataset or table "lgos" (did you mean 'logs'?)`},
		{"-in", in, "-load", "lgos | count", `1:1: unknown dataset or table "lgos" (did you mean 'logs'?)`},
	} {
		_, stderr, code = aplite(t, "", append([]string{"query"}, c[:len(c)-1]...)...)
		if code != 1 || strings.TrimSpace(stderr) != c[len(c)-1] {
			t.Errorf("%v: exit %d, stderr %q, want %q", c[:len(c)-1], code, stderr, c[len(c)-1])
		}
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

// serve answers the API, and SIGTERM finishes, flushes and exits 0;
// acknowledged events are there after a restart.
func TestServeLifecycle(t *testing.T) {
	data := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "serve", "-addr", addr, "-data", data, "-token", "xapt-lifecycle")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				return cmd
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("server did not start: %s", errb.String())
		return nil
	}
	call := func(method, path, ctype, body string) (int, string) {
		out, err := exec.Command("curl", "-s", "-o", "-", "-w", "\n%{http_code}", "-X", method,
			"-H", "Authorization: Bearer xapt-lifecycle", "-H", "X-Axiom-Org-Id: default",
			"-H", "Content-Type: "+ctype, "--data-binary", body, "http://"+addr+path).Output()
		if err != nil {
			t.Skipf("curl unavailable: %v", err)
		}
		s := strings.TrimSpace(string(out))
		i := strings.LastIndex(s, "\n")
		var code int
		json.Unmarshal([]byte(s[i+1:]), &code)
		return code, s[:max(i, 0)]
	}
	cmd := start()
	if code, body := call("POST", "/v2/datasets", "application/json", `{"name":"logs"}`); code != 200 {
		t.Fatalf("create: %d %s", code, body)
	}
	if code, body := call("POST", "/v1/datasets/logs/ingest", "application/x-ndjson", "{\"a\":1}\n{\"a\":2}\n"); code != 200 || !strings.Contains(body, `"ingested":2`) {
		t.Fatalf("ingest: %d %s", code, body)
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("shutdown exit: %v", err)
	}
	cmd = start()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	code, body := call("POST", "/v1/datasets/_apl?format=tabular", "application/json", `{"apl":"['logs'] | summarize sum(a)"}`)
	if code != 200 || !strings.Contains(body, `[[3]]`) {
		t.Errorf("after restart: %d %s", code, body)
	}
}

// Help is asked for, not an error: every form exits 0.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"serve", "-h"}, {"query", "-h"}, {"fmt", "-h"},
		{"functions", "-h"}, {"version", "-h"}, {"check", "-h"}, {"repair", "-h"}, {"admin", "-h"}, {"admin", "org", "list", "-h"}} {
		out, errOut, code := aplite(t, "", args...)
		if code != 0 || out+errOut == "" {
			t.Errorf("aplite %v: exit %d, output %q", args, code, out+errOut)
		}
	}
	if _, errOut, code := aplite(t, "", "nonsense"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("an unknown command: %d %q", code, errOut)
	}
}

// Node flags that do not fit together fail at once, naming the flag.
func TestServeClusterFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-ingest", "127.0.0.1:1"}, "-ingest names the ingest node for a query node"},
		{[]string{"-role", "query"}, "-role query needs -storage"},
		{[]string{"-role", "boss"}, `-role "boss"`},
		{[]string{"-compact-age", "-5s"}, "-compact-age -5s: want a positive duration"},
	} {
		args := append([]string{"serve", "-addr", "127.0.0.1:0", "-data", t.TempDir(), "-token", "xapt-cli-test"}, c.args...)
		_, stderr, code := aplite(t, "", args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// --version and -version print the version as `aplite version` does,
// instead of going to serve (exit 2 and serve's usage).
func TestVersionFlags(t *testing.T) {
	want, _, _ := aplite(t, "", "version")
	for _, flag := range []string{"--version", "-version"} {
		out, errOut, code := aplite(t, "", flag)
		if code != 0 || out != want || !strings.HasPrefix(out, "aplite ") || errOut != "" {
			first, _, _ := strings.Cut(errOut, "\n")
			t.Errorf("aplite %s: exit %d, stdout %q (want %q), stderr begins %q", flag, code, out, want, first)
		}
	}
}

// query -h is a synopsis with examples that says where the query comes
// from, then the flags; ingest -h too.
func TestQueryHelp(t *testing.T) {
	out, errOut, code := aplite(t, "", "query", "-h")
	help := out + errOut
	for _, want := range []string{"usage: aplite query", "standard input", "examples:", "-format", "rows"} {
		if code != 0 || !strings.Contains(help, want) {
			t.Errorf("query -h: exit %d, no %q in\n%s", code, want, help)
		}
	}
	out, errOut, code = aplite(t, "", "serve", "-h")
	if help = out + errOut; code != 0 || !strings.Contains(help, "usage: aplite [serve] [flags]") || !strings.Contains(help, "examples:") || !strings.Contains(help, "-addr") {
		t.Errorf("serve -h: exit %d\n%s", code, help)
	}
	out, errOut, code = aplite(t, "", "ingest", "-h")
	if help = out + errOut; code != 0 || !strings.Contains(help, "usage: aplite ingest") || !strings.Contains(help, "-batch-bytes") {
		t.Errorf("ingest -h: exit %d\n%s", code, help)
	}
}

// -in FILE without NAME= queries the file as its base name without
// extensions; a name that had to change is said on stderr; two files of
// one name are refused.
func TestQueryInDefaultName(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "fixtures", "http-logs.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "weblogs.ndjson")
	spaced := filepath.Join(dir, "my logs.ndjson")
	for _, p := range []string{plain, spaced} {
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := aplite(t, "", "query", "-in", plain, "-format", "csv", "weblogs | count")
	if code != 0 || out != "count\n200\n" || errOut != "" {
		t.Errorf("-in FILE: exit %d, %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = aplite(t, "", "query", "-in", spaced, "-format", "csv", "['my-logs'] | count")
	if code != 0 || out != "count\n200\n" || !strings.Contains(errOut, "['my-logs']") {
		t.Errorf("-in 'my logs.ndjson': exit %d, %q, stderr %q", code, out, errOut)
	}
	_, errOut, code = aplite(t, "", "query", "-in", "weblogs="+spaced, "-in", plain, "print 1")
	if code != 2 || !strings.Contains(errOut, `dataset "weblogs" is already given`) {
		t.Errorf("two files of one name: exit %d, stderr %q", code, errOut)
	}
}

// -format rows is a JSON array of row objects; rows and ndjson keep the
// column order; rows of a file have no _sysTime unless the query names it.
func TestQueryRowFormats(t *testing.T) {
	out, errOut, code := aplite(t, "", "query", "-format", "rows", "print b = 1, a = 'x', c = dynamic({'z': 1, 'y': [2]})")
	if code != 0 || out != `[{"b":1,"a":"x","c":{"y":[2],"z":1}}]`+"\n" {
		t.Errorf("rows: exit %d %q %s", code, out, errOut)
	}
	out, _, _ = aplite(t, "", "query", "-format", "rows", "print a = 1 | where a > 1")
	if out != "[]\n" {
		t.Errorf("rows of nothing: %q", out)
	}
	out, _, _ = aplite(t, "", "query", "-format", "ndjson", "datatable(z:long, a:string)[2, 'p', 1, 'q']")
	if out != "{\"z\":2,\"a\":\"p\"}\n{\"z\":1,\"a\":\"q\"}\n" {
		t.Errorf("ndjson column order: %q", out)
	}
	in := filepath.Join("testdata", "fixtures", "http-logs.ndjson")
	for _, load := range [][]string{nil, {"-load"}} {
		args := append([]string{"query", "-in", "logs=" + in, "-format", "csv"}, load...)
		out, _, _ = aplite(t, "", append(args, "logs | take 1")...)
		if strings.Contains(out, "_sysTime") || !strings.HasPrefix(out, "_time,") {
			t.Errorf("%v: a file's rows show _sysTime:\n%s", load, out)
		}
		out, _, _ = aplite(t, "", append(args, "logs | project _sysTime, method | take 1")...)
		if !strings.HasPrefix(out, "_sysTime,method\n") {
			t.Errorf("%v: a query naming _sysTime lost it:\n%s", load, out)
		}
	}
	// The whole-file Parquet export (chunk by chunk) leaves it out too:
	// the column names are plain text in the file's footer.
	pq := filepath.Join(t.TempDir(), "logs.parquet")
	if _, errOut, code := aplite(t, "", "query", "-in", "logs="+in, "-format", "parquet", "-o", pq, "logs"); code != 0 {
		t.Fatalf("parquet export: exit %d %s", code, errOut)
	}
	if b, err := os.ReadFile(pq); err != nil || bytes.Contains(b, []byte("_sysTime")) || !bytes.Contains(b, []byte("req_duration_ms")) {
		t.Errorf("the Parquet export of a file holds _sysTime (or no columns): %v", err)
	}
	out, _, _ = aplite(t, "", "query", "-in", "logs="+in, "-format", "rows", "logs | take 1")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0]["method"] == nil {
		t.Errorf("rows of a file: %v %s", err, out)
	}
}

// A table on a terminal shows its first rows and says how many more;
// piped, it has every row.
func TestQueryTableTerminal(t *testing.T) {
	in := "logs=" + filepath.Join("testdata", "fixtures", "http-logs.ndjson")
	out, _, code := aplite(t, "", "query", "-in", in, "logs | project method")
	if code != 0 || strings.Count(out, "\n") != 201 || strings.Contains(out, "more rows") {
		t.Errorf("piped table: exit %d, %d lines", code, strings.Count(out, "\n"))
	}
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) is not installed: no terminal to test with")
	}
	cmd := exec.Command("script", "-qec", bin+" query -in "+in+" 'logs | project method'", "/dev/null")
	var scriptErr bytes.Buffer
	cmd.Stderr = &scriptErr
	tty, err := cmd.Output()
	if err != nil && strings.Contains(scriptErr.String(), "pseudo-terminal") {
		t.Skipf("no pseudo-terminal here: %s", scriptErr.String())
	}
	if err != nil {
		t.Fatalf("script: %v\n%s%s", err, tty, scriptErr.String())
	}
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(string(tty), "\r\n", "\n"), "\n"), "\n")
	if len(lines) != 102 || lines[len(lines)-1] != "… 100 more rows (200 in all); pipe the output, or use -format csv, -o FILE or | take N to see them" {
		t.Errorf("table on a terminal: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}
