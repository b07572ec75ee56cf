package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// docBlock returns the ```sh block of docs/OPERATIONS.md that follows
// the marker <!-- test: NAME -->, so that the test runs what the
// operator reads.
func docBlock(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "<!-- test: "+name+" -->")
	if i < 0 {
		t.Fatalf("docs/OPERATIONS.md has no block marked %q", name)
	}
	rest := doc[i:]
	start := strings.Index(rest, "```sh\n")
	end := strings.Index(rest[start+6:], "```")
	if start < 0 || end < 0 {
		t.Fatalf("no ```sh block after the %q marker", name)
	}
	return rest[start+6 : start+6+end]
}

// runDoc runs a documented block with bash, the environment it names set.
func runDoc(t *testing.T, block string, env ...string) {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", block, err, out)
	}
}

// ingestEvents sends events FROM..FROM+N of make-fixtures.sh's shape.
func ingestEvents(t *testing.T, addr, dataset string, from, n int) {
	t.Helper()
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, `{"_time":"2024-01-01T00:00:00Z","status":%d,"msg":"m%d","dur":%.2f}`+"\n", 200+100*(i%4), i%7, float64(i)/4)
	}
	if code, body := apiCall(t, addr, "/v1/datasets/"+dataset+"/ingest", "application/x-ndjson", b.String()); code != 200 {
		t.Fatalf("ingest: %d %s", code, body)
	}
}

// A live server backed up as docs/OPERATIONS.md says (frozen for the
// copy, with events both in blocks and only in the WAL) and restored as
// it says answers as the server did when it was frozen; the server
// itself carries on after the backup.
func TestBackupOfALiveServerRestores(t *testing.T) {
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("tar is not installed: the documented backup needs it")
	}
	backup, restore := docBlock(t, "backup"), docBlock(t, "restore")
	data, addr := t.TempDir(), freeAddr(t)
	s := startServe(t, "-addr", addr, "-data", data, "-token", upgradeToken, "-flush-rows", "1000", "-flush-interval", "1h")
	if code, body := apiCall(t, addr, "/v2/datasets", "application/json", `{"name":"live"}`); code != 200 {
		t.Fatalf("create: %d %s", code, body)
	}
	ingestEvents(t, addr, "live", 0, 2500)   // past -flush-rows: written to a block
	ingestEvents(t, addr, "live", 2500, 300) // in the WAL only (-flush-interval 1h)
	if wal, _ := filepath.Glob(filepath.Join(data, "live", "wal", "*.wal")); len(wal) == 0 {
		t.Fatal("no WAL segment: the test would not back up events that are only in the WAL")
	}
	const summary = `['live'] | summarize n = count(), s = sum(status), d = sum(dur), m3 = countif(msg == "m3")`
	before := fmt.Sprint(queryRow(t, addr, summary))

	archive := filepath.Join(t.TempDir(), "aplite.tgz")
	runDoc(t, backup, "PID="+strconv.Itoa(s.cmd.Process.Pid), "DATA="+data, "BACKUP="+archive)

	ingestEvents(t, addr, "live", 2800, 100) // the thawed server carries on
	if got := queryRow(t, addr, `['live'] | count`); got[0] != float64(2900) {
		t.Fatalf("after the backup the server counts %v, want 2900", got[0])
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("stop: %v", err)
	}

	restored := filepath.Join(t.TempDir(), "restored")
	runDoc(t, restore, "DATA="+restored, "BACKUP="+archive)
	startServe(t, "-addr", addr, "-data", restored, "-token", upgradeToken)
	if after := fmt.Sprint(queryRow(t, addr, summary)); after != before {
		t.Fatalf("restored answers %s, the server answered %s when it was backed up", after, before)
	}
}
