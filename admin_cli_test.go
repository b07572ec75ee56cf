package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/server"
)

// adminRun runs `aplite admin ARGS -data dir` and returns stdout, stderr
// and the exit code.
func adminRun(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return aplite(t, "", append(append([]string{"admin"}, args...), "-data", dir)...)
}

// provisionCLI creates org gamma with carol through the command line and
// returns carol's personal token and an API token of gamma.
func provisionCLI(t *testing.T, dir string) (pat, api string) {
	t.Helper()
	must := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code := adminRun(t, dir, args...)
		if code != want {
			t.Fatalf("admin %v: exit %d, want %d; stdout %q stderr %q", args, code, want, out, errOut)
		}
		if want != 0 {
			return errOut
		}
		return strings.TrimSpace(out)
	}
	if got := must(0, "org", "create", "gamma", "-name", "Gamma Ltd"); got != "gamma" {
		t.Fatalf("org create printed %q", got)
	}
	if got := must(1, "org", "create", "gamma"); !strings.Contains(got, "already exists") {
		t.Fatalf("second org create: %q", got)
	}
	if got := must(0, "org", "list"); !strings.Contains(got, "gamma") || !strings.Contains(got, "Gamma Ltd") || !strings.Contains(got, "default") {
		t.Fatalf("org list %q", got)
	}
	pat = must(0, "user", "add", "carol@example.com", "-org", "gamma", "-role", "admin")
	if !strings.HasPrefix(pat, "xapt-") {
		t.Fatalf("user add printed %q", pat)
	}
	if got := must(0, "user", "add", "carol@example.com", "-org", "gamma", "-role", "user"); got != "" {
		t.Fatalf("re-adding a user printed a token %q", got)
	}
	if got := strings.Fields(must(0, "user", "list", "-org", "gamma")); len(got) != 4 || got[0] != "gamma" || got[1] != "carol@example.com" || got[2] != "user" {
		t.Fatalf("user list %q", got)
	}
	api = must(0, "token", "create", "-org", "gamma")
	if !strings.HasPrefix(api, "xaat-") {
		t.Fatalf("token create printed %q", api)
	}
	if got := must(0, "token", "create", "-user", "carol@example.com"); !strings.HasPrefix(got, "xapt-") {
		t.Fatalf("personal token create printed %q", got)
	}
	must(1, "user", "add", "dave@example.com", "-org", "nope")
	must(1, "user", "add", "dave@example.com", "-org", "gamma", "-role", "boss")
	must(2, "user", "add", "dave@example.com")
	must(2, "token", "create")
	must(2, "org", "create")
	must(2, "org", "frobnicate")
	return pat, api
}

func TestAdminCLIOnStoppedDir(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := adminRun(t, dir, "org", "list"); code != 1 || !strings.Contains(errOut, "no aplite metadata") {
		t.Fatalf("admin on an empty dir: exit %d, %q", code, errOut)
	}
	s, err := server.New(server.Config{DataDir: dir, Token: "xapt-cli-admin", Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	provisionCLI(t, dir)
	if out, _, code := adminRun(t, dir, "user", "list"); code != 0 || !strings.HasPrefix(strings.Join(strings.Fields(out), " "), "default admin@localhost owner ") {
		t.Fatalf("user list: exit %d %q", code, out)
	}
}

// serveForAdmin starts `aplite serve` on dir with the personal token
// xapt-cli-admin and returns a function that calls its API and answers
// the status and headers.
func serveForAdmin(t *testing.T, dir string) func(token, org, method, path, body string) (int, http.Header) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "-addr", addr, "-data", dir, "-token", "xapt-cli-admin")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i == 100 {
			t.Fatalf("server did not start: %s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return func(token, org, method, path, body string) (int, http.Header) {
		q, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		q.Header.Set("Authorization", "Bearer "+token)
		q.Header.Set("Content-Type", "application/json")
		if org != "" {
			q.Header.Set("X-Axiom-Org-Id", org)
		}
		resp, err := http.DefaultClient.Do(q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
}

func TestAdminCLIOnRunningServer(t *testing.T) {
	dir := t.TempDir()
	api2 := serveForAdmin(t, dir)
	call := func(token, org, method, path, body string) int {
		code, _ := api2(token, org, method, path, body)
		return code
	}
	pat, api := provisionCLI(t, dir)
	if code := call(pat, "gamma", "POST", "/v2/datasets", `{"name":"g"}`); code != 200 {
		t.Fatalf("carol creating a dataset in gamma: %d", code)
	}
	if code := call(api, "", "GET", "/v2/datasets/g", ""); code != 200 {
		t.Fatalf("gamma's API token reading g: %d", code)
	}
	if code := call(pat, "default", "GET", "/v2/datasets", ""); code != 403 {
		t.Fatalf("carol in the default org: %d", code)
	}
	if code := call("xapt-cli-admin", "default", "GET", "/v2/datasets/g", ""); code != 404 {
		t.Fatalf("the default org reading gamma's dataset: %d", code)
	}
	if _, errOut, code := adminRun(t, dir, "user", "remove", "carol@example.com", "-org", "gamma"); code != 0 {
		t.Fatalf("user remove: exit %d %s", code, errOut)
	}
	if code := call(pat, "gamma", "GET", "/v2/datasets", ""); code != 403 {
		t.Fatalf("carol after removal: %d", code)
	}
}

// `aplite admin limits` changes a running server's limits at once.
func TestAdminCLILimits(t *testing.T) {
	dir := t.TempDir()
	call := serveForAdmin(t, dir)
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		out, errOut, code := adminRun(t, dir, args...)
		if code != want {
			t.Fatalf("admin %v: exit %d, want %d; stdout %q stderr %q", args, code, want, out, errOut)
		}
		return strings.Join(strings.Fields(out), " "), errOut
	}
	if out, _ := run(0, "limits", "set", "-org", "default", "-api-rate", "1", "-query-rate", "9"); out != "default 1 100000 9" {
		t.Fatalf("limits set printed %q", out)
	}
	if out, _ := run(0, "limits", "list"); out != "default 1 100000 9" {
		t.Fatalf("limits list printed %q", out)
	}
	// One request a second: of a few in a row, one is refused at once.
	refused := false
	for range 4 {
		code, h := call("xapt-cli-admin", "default", "GET", "/v2/datasets", "")
		if h.Get("X-RateLimit-Limit") != "1" {
			t.Fatalf("status %d, headers %v", code, h)
		}
		if code == 429 {
			refused = true
			if h.Get("Retry-After") == "" {
				t.Fatalf("429 without Retry-After: %v", h)
			}
			break
		}
	}
	if !refused {
		t.Fatal("four requests in a row all admitted under a limit of 1 per second")
	}
	run(0, "limits", "set", "-org", "default", "-api-rate", "0")
	for range 4 {
		if code, h := call("xapt-cli-admin", "default", "GET", "/v2/datasets", ""); code != 200 || h.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("unlimited: status %d, headers %v", code, h)
		}
	}
	for _, c := range []struct {
		code int
		args []string
		want string
	}{
		{2, []string{"limits", "set", "-org", "default"}, "at least one of"},
		{2, []string{"limits", "set", "-api-rate", "5"}, "-org is required"},
		{2, []string{"limits", "set", "-org", "default", "-ingest-rate", "-3"}, "-ingest-rate -3"},
		{1, []string{"limits", "set", "-org", "nope", "-api-rate", "5"}, `organization "nope": not found`},
		{1, []string{"limits", "list", "-org", "nope"}, `organization "nope" not found`},
	} {
		if _, errOut := run(c.code, c.args...); !strings.Contains(errOut, c.want) {
			t.Errorf("admin %v: stderr %q, want %q", c.args, errOut, c.want)
		}
	}
}
