package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// TestOrgsStorageNames checks the on-disk names: the storage org's
// datasets keep plain names, so a data directory from before several
// orgs works unchanged, also when restarted with another -org.
func TestOrgsStorageNames(t *testing.T) {
	dir := t.TempDir()
	ts := newTestServerConfig(t, Config{DataDir: dir, OrgID: "acme"})
	if _, err := ts.s.meta.CreateOrg("beta", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ts.s.meta.AddUser("admin@localhost", "", "beta", "owner", time.Now()); err != nil {
		t.Fatal(err)
	}
	ts.createDataset("logs")
	ts.must(req{method: "POST", path: "/v2/datasets", org: "beta", body: map[string]any{"name": "logs"}}, 200)
	ts.ingestNDJSON("logs", `{"a":1}`)
	for _, name := range []string{"logs", orgStoragePrefix + "beta.logs"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("stored dataset directory: %v", err)
		}
	}
	if err := ts.s.Close(); err != nil {
		t.Fatal(err)
	}
	// Restarted with another default org, acme's data stays acme's.
	ts2 := newTestServerConfig(t, Config{DataDir: dir, OrgID: "other", Token: ts.token})
	if got := (&twoOrgs{testServer: ts2}).names("", "other"); len(got) != 0 {
		t.Fatalf("the new default org sees %v", got)
	}
	ts2.mustErr(req{method: "POST", path: "/v1/datasets/_apl", body: map[string]any{"apl": "['logs'] | count"}}, 404, "logs")
	ts2.org = "acme"
	if got := ts2.count("logs"); got != 1 {
		t.Fatalf("acme's logs after restart: %d rows", got)
	}
}

// TestOrgIDValidated: a '.' in an org id would make stored names
// ambiguous (axiom-org.a.b.x), so such ids are refused everywhere.
func TestOrgIDValidated(t *testing.T) {
	if _, err := New(Config{DataDir: t.TempDir(), OrgID: "a.b", Log: os.Stderr}); err == nil {
		t.Fatal("-org with a dot accepted")
	}
	ts := newTestServer(t)
	// (A request first: the test server's shutdown waits for Serve to
	// have started.)
	ts.must(req{method: "GET", path: "/v2/orgs"}, 200)
	for _, id := range []string{"a.b", "", "x y", "0123456789012345678901234567890123456"} {
		if _, err := ts.s.meta.CreateOrg(id, "", time.Now()); err == nil {
			t.Errorf("org id %q accepted", id)
		}
	}
	if _, err := ts.s.meta.CreateOrg(ts.org, "", time.Now()); !errors.Is(err, meta.ErrExists) {
		t.Errorf("creating an existing org: %v", err)
	}
}

// TestOrgsReadOnlyRole: a personal token acts with its user's role in
// the org it names: read-only reads, and nothing else, in that org only.
func TestOrgsReadOnlyRole(t *testing.T) {
	ts := newTwoOrgs(t)
	ts.seed()
	rita, tok, err := ts.s.meta.AddUser("rita@example.com", "", "beta", "read-only", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ts.s.meta.AddUser("rita@example.com", "", ts.org, "user", time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := ts.apl(tok, "beta", "['logs'] | count"); got[0] != float64(2) {
		t.Fatalf("read-only query %v", got)
	}
	ts.must(req{method: "GET", path: "/v2/datasets/logs", token: tok, org: "beta"}, 200)
	ts.mustErr(req{method: "POST", path: "/v2/datasets", token: tok, org: "beta", body: map[string]any{"name": "x"}}, 403, "not allowed")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/logs/ingest", token: tok, org: "beta",
		contentType: "application/x-ndjson", body: `{"a":1}`}, 403, "not allowed")
	ts.mustErr(req{method: "POST", path: "/v2/tokens", token: tok, org: "beta", body: map[string]any{"name": "t"}}, 403, "not allowed")
	ts.mustErr(req{method: "DELETE", path: "/v2/datasets/logs", token: tok, org: "beta"}, 403, "not allowed")
	// As a plain user in the default org she may write there.
	ts.must(req{method: "POST", path: "/v2/datasets", token: tok, org: ts.org, body: map[string]any{"name": "rita"}}, 200)
	// Her role in the org updated counts, whatever org the header names.
	ts.mustErr(req{method: "PUT", path: "/v2/orgs/beta", token: tok, org: ts.org, body: map[string]any{"name": "x"}}, 403, "not allowed")
	ts.must(req{method: "PUT", path: "/v2/orgs/" + ts.org, token: tok, org: "beta", body: map[string]any{"name": "Default"}}, 200)
	// A role changed through the API applies to the next request.
	ts.must(req{method: "PUT", path: "/v2/users/" + rita.ID + "/role", org: ts.org, body: map[string]any{"role": "read-only"}}, 200)
	ts.mustErr(req{method: "POST", path: "/v2/datasets", token: tok, org: ts.org, body: map[string]any{"name": "rita2"}}, 403, "not allowed")
	// A role aplite does not know (a misspelling, an RBAC role id) grants
	// the least: reading, never full control.
	for i, role := range []string{"readonly", "Read-Only", "rol_80f1e2", "super-user"} {
		ts.must(req{method: "PUT", path: "/v2/users/" + rita.ID + "/role", org: ts.org, body: map[string]any{"role": role}}, 200)
		ts.mustErr(req{method: "POST", path: "/v2/datasets", token: tok, org: ts.org, body: map[string]any{"name": fmt.Sprint("r", i)}}, 403, "not allowed")
	}
	ts.must(req{method: "PUT", path: "/v2/users/" + rita.ID + "/role", org: ts.org, body: map[string]any{"role": "Admin"}}, 200)
	ts.must(req{method: "POST", path: "/v2/datasets", token: tok, org: ts.org, body: map[string]any{"name": "rita3"}}, 200)
}
