package server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
)

// syslogNG finds a syslog-ng with the http module: the one unpacked by
// scripts/syslog-ng-local.sh in $APLITE_SYSLOG_NG_ROOT, or an installed
// one (Debian's syslog-ng-core and syslog-ng-mod-http). It returns the
// command's arguments before the config and the environment it needs.
func syslogNG(t *testing.T) (args []string, env []string, includes string) {
	if root := os.Getenv("APLITE_SYSLOG_NG_ROOT"); root != "" {
		mods, _ := filepath.Glob(filepath.Join(root, "usr/lib/syslog-ng/3.*"))
		if len(mods) == 0 {
			t.Fatalf("APLITE_SYSLOG_NG_ROOT=%s holds no syslog-ng modules: run scripts/syslog-ng-local.sh %s", root, root)
		}
		return []string{filepath.Join(root, "usr/sbin/syslog-ng"), "--module-path=" + mods[0]},
			[]string{"LD_LIBRARY_PATH=" + filepath.Join(root, "usr/lib/syslog-ng")},
			filepath.Join(root, "usr/share/syslog-ng/include")
	}
	bin, err := exec.LookPath("syslog-ng")
	if err != nil {
		if _, err := os.Stat("/usr/sbin/syslog-ng"); err != nil {
			t.Skip("syslog-ng is not installed (apt-get install syslog-ng-core syslog-ng-mod-http, or scripts/syslog-ng-local.sh DIR and APLITE_SYSLOG_NG_ROOT=DIR): the real-sender test of the Elasticsearch door is skipped")
		}
		bin = "/usr/sbin/syslog-ng"
	}
	if http, _ := filepath.Glob("/usr/lib/syslog-ng/3.*/libhttp.so"); len(http) == 0 {
		t.Skip("syslog-ng has no http module (apt-get install syslog-ng-mod-http): the real-sender test of the Elasticsearch door is skipped")
	}
	return []string{bin}, nil, "/usr/share/syslog-ng/include"
}

// newTCPTestServer is newTestServer on a loopback TCP port, for senders
// that run as their own process.
func newTCPTestServer(t *testing.T) (*testServer, string) {
	t.Helper()
	s, err := New(Config{DataDir: t.TempDir(), DB: db.OpenMemory(db.Options{Isolated: true}),
		Token: "xapt-test-admin-token-0001", Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		<-done
	})
	addr := ln.Addr().String()
	client := &fasthttp.Client{Dial: func(string) (net.Conn, error) { return net.Dial("tcp", addr) }, ReadTimeout: 30 * time.Second}
	return &testServer{t: t, s: s, client: client, token: s.Token(), org: s.OrgID()}, addr
}

// syslog-ng's elasticsearch-http() destination, a real Elasticsearch
// shipper, reads a file of RFC 5424 lines and posts them in bulk batches
// of 7 to the door with Basic auth (user "axiom", an ingest token for the
// dataset as password), as Axiom's pages configure shippers. Every line
// is stored once, with the line's timestamp as _time (syslog-ng's
// @timestamp) and its message, host and program as fields.
func TestElasticSyslogNG(t *testing.T) {
	args, env, includes := syslogNG(t)
	ts, addr := newTCPTestServer(t)
	ts.createDataset("syslog")
	tok := ts.newToken(map[string]any{"syslog": map[string]any{"ingest": []string{"create"}}}, nil).Token

	dir := t.TempDir()
	const n = 40
	base := time.Date(2024, 1, 7, 12, 0, 0, 0, time.UTC)
	var lines strings.Builder
	for i := range n {
		fmt.Fprintf(&lines, "<14>1 %s web-%d app %d - - request %d done\n", base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i%3, 100+i, i)
	}
	in := filepath.Join(dir, "in.log")
	if err := os.WriteFile(in, []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`@version: 3.38
@define include-path %q
@include "scl/elasticsearch/elastic-http.conf"
options { stats_freq(0); keep_hostname(yes); };
source s_in { file(%q flags(syslog-protocol) follow-freq(0.1)); };
destination d_aplite {
  elasticsearch-http(
    url("http://%s/v1/ingest/syslog/elastic/_bulk")
    index("syslog-ng") type("")
    user("axiom") password(%q)
    workers(1) batch_lines(7) batch_timeout(100)
  );
};
log { source(s_in); destination(d_aplite); };
`, includes, in, addr, tok)
	cfg := filepath.Join(dir, "syslog-ng.conf")
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer // written by syslog-ng's output copiers while the test reads it
	cmd := exec.Command(args[0], append(args[1:], "-F", "-e", "-f", cfg, "-R", filepath.Join(dir, "persist"),
		"-c", filepath.Join(dir, "ctl"), "-p", filepath.Join(dir, "pid"))...)
	cmd.Env, cmd.Stdout, cmd.Stderr = append(os.Environ(), env...), &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{}) // closed once syslog-ng has exited, waitErr set
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})

	// Wait for the events, not a fixed time: poll the count until every
	// line is in or syslog-ng gives up.
	deadline := time.Now().Add(30 * time.Second)
	var count float64
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("syslog-ng exited: %v\n%s", waitErr, logs.String())
		default:
		}
		if count = ts.aplColumns(t, "['syslog'] | count")[0][0].(float64); count >= n {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if count != n {
		t.Fatalf("stored %v events, want %d; syslog-ng said:\n%s", count, n, logs.String())
	}
	cols := ts.aplColumns(t, "['syslog'] | sort by _time asc | project _time, MESSAGE, HOST, PROGRAM, PID")
	for i := range n {
		if want := base.Add(time.Duration(i) * time.Second).Format(time.RFC3339); cols[0][i] != want {
			t.Fatalf("event %d: _time %v, want %s", i, cols[0][i], want)
		}
		if want := fmt.Sprintf("request %d done", i); cols[1][i] != want || cols[2][i] != fmt.Sprintf("web-%d", i%3) ||
			cols[3][i] != "app" || cols[4][i] != fmt.Sprint(100+i) {
			t.Fatalf("event %d: %v %v %v %v, want %q web-%d app %d", i, cols[1][i], cols[2][i], cols[3][i], cols[4][i], want, i%3, 100+i)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
