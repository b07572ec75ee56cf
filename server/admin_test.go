package server

import (
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// provision creates org gamma with carol and a full API token through a,
// and returns carol's personal token and the API token.
func provision(t *testing.T, a Admin) (pat, api string) {
	t.Helper()
	o, err := a.CreateOrg("gamma", "Gamma Ltd")
	if err != nil || o.ID != "gamma" || o.Name != "Gamma Ltd" {
		t.Fatalf("create org: %+v, %v", o, err)
	}
	u, pat, err := a.AddUser("carol@example.com", "", "gamma", "admin")
	if err != nil || !strings.HasPrefix(pat, "xapt-") || u.Name != "carol" {
		t.Fatalf("add user: %+v, token %q, %v", u, pat, err)
	}
	if api, err = a.IssueAPIToken("gamma", ""); err != nil || !strings.HasPrefix(api, "xaat-") {
		t.Fatalf("api token %q, %v", api, err)
	}
	// Failures say what is wrong.
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(a.CreateOrg("gamma", "")), "already exists"},
		{second(a.CreateOrg("has.dot", "")), "may only hold"},
		{third(a.AddUser("dave@example.com", "", "nope", "user")), "not found"},
		{third(a.AddUser("dave@example.com", "", "gamma", "boss")), "role"},
		{third(a.AddUser("not-an-email", "", "gamma", "user")), "email"},
		{second(a.IssueAPIToken("nope", "")), "not found"},
		{second(a.IssuePAT("nobody@example.com")), "not found"},
		{a.RemoveUser("admin@localhost", "default"), "cannot leave"},
		{a.RemoveUser("admin@localhost", "gamma"), "not found"},
		{second(a.Users("nope")), "not found"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("got error %v, want one saying %q", c.err, c.want)
		}
	}
	// Adding carol again changes her role and issues no second token.
	if _, again, err := a.AddUser("carol@example.com", "", "gamma", "user"); err != nil || again != "" {
		t.Fatalf("re-adding carol: token %q, %v", again, err)
	}
	rows, err := a.Users("gamma")
	if err != nil || len(rows) != 1 || rows[0].User.Email != "carol@example.com" || rows[0].Role != "user" {
		t.Fatalf("gamma users %+v, %v", rows, err)
	}
	orgs, err := a.Orgs()
	if err != nil || len(orgs) != 2 || orgs[1].ID != "gamma" {
		t.Fatalf("orgs %+v, %v", orgs, err)
	}
	return pat, api
}

func second[T any](_ T, err error) error        { return err }
func third[T, U any](_ T, _ U, err error) error { return err }

// useGamma checks that carol's token and gamma's API token act in gamma.
func useGamma(ts *testServer, pat, api string) {
	ts.t.Helper()
	ts.must(req{method: "POST", path: "/v2/datasets", token: pat, org: "gamma", body: map[string]any{"name": "g"}}, 200)
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: pat, org: ts.org}, 403, "not accessible")
	got := (&twoOrgs{testServer: ts}).names(api, "")
	if !slices.Equal(got, []string{"g"}) {
		ts.t.Fatalf("gamma's API token sees %v", got)
	}
}

func TestAdminOnStoppedDataDir(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenAdmin(dir); !errors.Is(err, ErrNoData) {
		t.Fatalf("admin on an empty directory: %v", err)
	}
	ts := newTestServerConfig(t, Config{DataDir: dir})
	token := ts.token
	ts.must(req{method: "GET", path: "/v2/orgs"}, 200)
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	// A socket file left by a crash does not fool it.
	if err := os.WriteFile(filepath.Join(dir, AdminSocketName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := OpenAdmin(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, direct := a.(*adminStore); !direct {
		t.Fatalf("stopped directory administered through %T", a)
	}
	pat, api := provision(t, a)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	ts2 := newTestServerConfig(t, Config{DataDir: dir, Token: token})
	useGamma(ts2, pat, api)
}

func TestAdminOnRunningServer(t *testing.T) {
	dir := t.TempDir()
	ts := newTestServerConfig(t, Config{DataDir: dir})
	// Seen before the org exists: the server must not remember that.
	ts.mustErr(req{method: "GET", path: "/v2/datasets", org: "gamma"}, 403, "not accessible")
	a, err := OpenAdmin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, remote := a.(*adminClient); !remote {
		t.Fatalf("running server administered through %T", a)
	}
	// The socket asks no token, so only the owner may reach it: its
	// directory is 0700 from before the socket exists.
	st, err := os.Stat(filepath.Dir(filepath.Join(dir, AdminSocketName)))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("admin socket directory mode %v, want 0700", st.Mode().Perm())
	}
	pat, api := provision(t, a)
	useGamma(ts, pat, api)
	// The owner joins gamma; a second personal token for carol works too.
	if _, _, err := a.AddUser("admin@localhost", "", "gamma", "owner"); err != nil {
		t.Fatal(err)
	}
	ts.must(req{method: "GET", path: "/v2/datasets/g", org: "gamma"}, 200)
	pat2, err := a.IssuePAT("carol@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ts.must(req{method: "GET", path: "/v2/datasets/g", token: pat2, org: "gamma"}, 200)
	// Removed from her only org, carol's tokens stop at once.
	if err := a.RemoveUser("carol@example.com", "gamma"); err != nil {
		t.Fatal(err)
	}
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: pat, org: "gamma"}, 403, "invalid token")
	rows, err := a.Users("")
	if err != nil || len(rows) != 2 {
		t.Fatalf("all memberships %+v, %v", rows, err)
	}
	// The owner may leave gamma (its admin token acts in the default org),
	// and keeps the default org.
	if err := a.RemoveUser("admin@localhost", "gamma"); err != nil {
		t.Fatal(err)
	}
	ts.mustErr(req{method: "GET", path: "/v2/datasets", org: "gamma"}, 403, "not accessible")
	ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
}

// `aplite admin` connects once: the connection that finds the server
// carries the first request.
func TestAdminDialsOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, AdminSocketName)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var accepts atomic.Int32
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"orgs":[{"id":"x"}]}`))
		}),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				accepts.Add(1)
			}
		},
	}
	go srv.Serve(ln)
	defer srv.Close()
	a, err := OpenAdmin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for range 2 {
		if orgs, err := a.Orgs(); err != nil || len(orgs) != 1 {
			t.Fatalf("orgs %+v, %v", orgs, err)
		}
	}
	if n := accepts.Load(); n != 1 {
		t.Fatalf("%d connections for two requests, want 1", n)
	}
}

// Limits set through `aplite admin` apply to a running server's next
// request, and only the limits given change.
func TestAdminSetsLimitsOnRunningServer(t *testing.T) {
	dir := t.TempDir()
	ts := newTestServerConfig(t, Config{DataDir: dir})
	clock := ts.driveLimits()
	ts.must(req{method: "GET", path: "/v2/datasets"}, 200)
	a, err := OpenAdmin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, remote := a.(*adminClient); !remote {
		t.Fatalf("running server administered through %T", a)
	}
	n := func(v int64) *int64 { return &v }
	lic, err := a.SetLimits(ts.org, Limits{APIRate: n(2), QueryRate: n(7)})
	if err != nil || lic.APIRateLimitPerSecond != 2 || lic.QueryLimitPerSecond != 7 || lic.IngestLimitPerSecond != 100000 {
		t.Fatalf("set limits: %+v, %v", lic, err)
	}
	// The request before the change counts: one more is admitted.
	if r := ts.must(req{method: "GET", path: "/v2/datasets"}, 200); r.header["X-Ratelimit-Limit"] != "2" || r.header["X-Ratelimit-Remaining"] != "0" {
		t.Fatalf("after the change: headers %v", r.header)
	}
	ts.mustErr(req{method: "GET", path: "/v2/datasets"}, 429, "at most 2 requests per second")
	// 0 lifts the limit: no refusal, and no headers for a limit there is not.
	if _, err := a.SetLimits(ts.org, Limits{APIRate: n(0)}); err != nil {
		t.Fatal(err)
	}
	if r := ts.must(req{method: "GET", path: "/v2/datasets"}, 200); r.header["X-Ratelimit-Limit"] != "" {
		t.Fatalf("unlimited: headers %v", r.header)
	}
	clock.add(time.Second)
	for _, c := range []struct {
		org  string
		l    Limits
		want string
	}{
		{ts.org, Limits{IngestRate: n(-1)}, "ingest rate -1"},
		{"nope", Limits{APIRate: n(1)}, `organization "nope": not found`},
	} {
		if _, err := a.SetLimits(c.org, c.l); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("set limits %+v on %s: %v, want an error saying %q", c.l, c.org, err, c.want)
		}
	}
	var o meta.Org
	if err := ts.s.meta.Get(meta.KindOrg, "", ts.org, &o); err != nil || o.License.QueryLimitPerSecond != 7 || o.License.IngestLimitPerSecond != 100000 {
		t.Fatalf("stored license %+v, %v", o.License, err)
	}
}

// A data directory deeper than a unix socket's 107-byte path still gets
// its admin socket: a token made by `aplite admin` on the running server
// works at once, with no restart (the server used to run without a
// socket, and the command could only wait for the file's lock).
func TestAdminSocketInDeepDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	sock := filepath.Join(dir, AdminSocketName)
	t.Cleanup(func() { // after the server's shutdown
		if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("socket left behind at shutdown: %v", err)
		}
	})
	ts := newTestServerConfig(t, Config{DataDir: dir})
	a, err := OpenAdmin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, remote := a.(*adminClient); !remote {
		t.Fatalf("running server administered through %T", a)
	}
	tok, err := a.IssueAPIToken(ts.org, "deep")
	if err != nil {
		t.Fatal(err)
	}
	ts.must(req{method: "GET", path: "/v2/datasets", token: tok}, 200)
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v, %v", st, err)
	}
}
