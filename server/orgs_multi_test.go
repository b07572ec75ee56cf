package server

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// twoOrgs is a server with the default org and org "beta"; the admin
// (owner) belongs to both, bob to beta only.
type twoOrgs struct {
	*testServer
	bob      string // bob's personal token
	bobID    string
	betaAPI  string // an API token of beta allowed everything
	adminAPI string // an API token of the default org allowed everything
}

func newTwoOrgs(t *testing.T) *twoOrgs {
	t.Helper()
	ts := newTestServer(t)
	now := time.Now()
	if _, err := ts.s.meta.CreateOrg("beta", "Beta Inc", now); err != nil {
		t.Fatal(err)
	}
	if _, tok, err := ts.s.meta.AddUser("admin@localhost", "", "beta", "admin", now); err != nil || tok != "" {
		t.Fatalf("adding the admin to beta: token %q, %v", tok, err)
	}
	bob, bobTok, err := ts.s.meta.AddUser("bob@example.com", "Bob", "beta", "user", now)
	if err != nil || bobTok == "" {
		t.Fatalf("adding bob: token %q, %v", bobTok, err)
	}
	_, betaAPI, err := ts.s.meta.IssueAPIToken("beta", "first", now)
	if err != nil {
		t.Fatal(err)
	}
	_, adminAPI, err := ts.s.meta.IssueAPIToken(ts.org, "first", now)
	if err != nil {
		t.Fatal(err)
	}
	return &twoOrgs{testServer: ts, bob: bobTok, bobID: bob.ID, betaAPI: betaAPI, adminAPI: adminAPI}
}

// names lists the datasets the token sees in org ("": no org header).
func (ts *twoOrgs) names(token, org string) []string {
	ts.t.Helper()
	var list []struct {
		Name string `json:"name"`
	}
	ts.must(req{method: "GET", path: "/v2/datasets", token: token, org: org, noOrg: org == ""}, 200).json(ts.t, &list)
	out := []string{}
	for _, d := range list {
		out = append(out, d.Name)
	}
	return out
}

// apl runs a query as token in org and returns the first column.
func (ts *twoOrgs) apl(token, org, q string) []any {
	ts.t.Helper()
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", token: token, org: org,
		body: map[string]any{"apl": q}}, 200).json(ts.t, &res)
	if len(res.Tables) == 0 || len(res.Tables[0].Columns) == 0 {
		return nil
	}
	return res.Tables[0].Columns[0]
}

// seed gives both orgs a dataset "logs" with different rows, and each a
// dataset of its own.
func (ts *twoOrgs) seed() {
	ts.t.Helper()
	for _, o := range []struct{ org, only, rows string }{
		{ts.org, "only-default", `{"who":"default-row","n":1}` + "\n"},
		{"beta", "only-beta", `{"who":"beta-row","n":1}` + "\n" + `{"who":"beta-row","n":2}` + "\n"},
	} {
		for _, ds := range []string{"logs", o.only} {
			ts.must(req{method: "POST", path: "/v2/datasets", org: o.org, body: map[string]any{"name": ds}}, 200)
			ts.must(req{method: "POST", path: "/v1/datasets/" + ds + "/ingest", org: o.org,
				contentType: "application/x-ndjson", body: o.rows}, 200)
		}
	}
}

func TestOrgsPATSeesEachOrgsDatasets(t *testing.T) {
	ts := newTwoOrgs(t)
	ts.seed()
	if got := ts.names("", ts.org); !slices.Equal(got, []string{"logs", "only-default"}) {
		t.Fatalf("default org datasets %v", got)
	}
	if got := ts.names("", "beta"); !slices.Equal(got, []string{"logs", "only-beta"}) {
		t.Fatalf("beta datasets %v", got)
	}
	// The same name holds different data in each org.
	if got := ts.apl("", ts.org, "['logs'] | count"); got[0] != float64(1) {
		t.Fatalf("default logs count %v", got)
	}
	if got := ts.apl("", "beta", "['logs'] | count"); got[0] != float64(2) {
		t.Fatalf("beta logs count %v", got)
	}
	// Info and get answer per org too.
	var info struct {
		NumEvents int `json:"numEvents"`
	}
	ts.must(req{method: "GET", path: "/v1/datasets/logs/info", org: "beta"}, 200).json(t, &info)
	if info.NumEvents != 2 {
		t.Fatalf("beta logs info %+v", info)
	}
	ts.mustErr(req{method: "GET", path: "/v2/datasets/only-beta", org: ts.org}, 404, "not found")
	ts.mustErr(req{method: "GET", path: "/v2/datasets/only-default", org: "beta"}, 404, "not found")
	// Deleting beta's logs leaves the default org's.
	ts.must(req{method: "DELETE", path: "/v2/datasets/logs", org: "beta"}, 204)
	if got := ts.apl("", ts.org, "['logs'] | count"); got[0] != float64(1) {
		t.Fatalf("default logs after beta's deletion %v", got)
	}
	ts.mustErr(req{method: "POST", path: "/v1/datasets/_apl", org: "beta", body: map[string]any{"apl": "['logs']"}}, 404, "logs")
}

func TestOrgsQueriesNeverCrossOrgs(t *testing.T) {
	ts := newTwoOrgs(t)
	ts.seed()
	for _, q := range []string{
		"union * | distinct who",
		"union withsource=ds * | where who == 'beta-row' | distinct who",
		"union ['only*'] | distinct who",
		`search "row" | distinct who`,
		"['logs'] | join kind=inner (union *) on who | distinct who",
		"['logs'] | lookup (union *) on who | distinct who",
	} {
		for _, c := range []struct{ org, want, token string }{
			{ts.org, "default-row", ""}, {"beta", "beta-row", ""}, {"beta", "beta-row", ts.betaAPI},
			{ts.org, "default-row", ts.adminAPI},
		} {
			got := ts.apl(c.token, c.org, q)
			// Only the query for beta's row may come back empty (outside beta).
			if len(got) == 0 && !strings.Contains(q, "beta-row") {
				t.Errorf("%s in %s: no rows, want %q", q, c.org, c.want)
			}
			for _, v := range got {
				if v != c.want {
					t.Errorf("%s in %s: got %v, want only %q", q, c.org, got, c.want)
				}
			}
		}
	}
	// withsource names the dataset as the org does, never as stored.
	got := ts.apl("", "beta", "union withsource=ds * | distinct ds | sort by ds asc")
	if len(got) != 2 || got[0] != "logs" || got[1] != "only-beta" {
		t.Fatalf("beta sources %v", got)
	}
}

func TestOrgsForeignOrgIsForbidden(t *testing.T) {
	ts := newTwoOrgs(t)
	ts.seed()
	// Bob belongs to beta only.
	if got := ts.names(ts.bob, "beta"); !slices.Equal(got, []string{"logs", "only-beta"}) {
		t.Fatalf("bob in beta sees %v", got)
	}
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: ts.bob, org: ts.org}, 403, "not accessible")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/_apl", token: ts.bob, org: ts.org,
		body: map[string]any{"apl": "['logs'] | count"}}, 403, "not accessible")
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: ts.bob, org: "no-such-org"}, 403, "not accessible")
	ts.mustErr(req{method: "GET", path: "/v2/orgs/" + ts.org, token: ts.bob, noOrg: true}, 404, "not found")
	var orgs []struct {
		ID   string `json:"id"`
		Role string `json:"role"`
	}
	ts.must(req{method: "GET", path: "/v2/orgs", token: ts.bob, noOrg: true}, 200).json(t, &orgs)
	if len(orgs) != 1 || orgs[0].ID != "beta" || orgs[0].Role != "user" {
		t.Fatalf("bob's orgs %+v", orgs)
	}
	ts.must(req{method: "GET", path: "/v2/orgs", noOrg: true}, 200).json(t, &orgs)
	if len(orgs) != 2 || orgs[0].ID != "beta" || orgs[0].Role != "admin" || orgs[1].Role != "owner" {
		t.Fatalf("admin's orgs %+v", orgs)
	}
	// Once out of beta, bob (in no org any more) is gone with his token.
	ts.must(req{method: "DELETE", path: "/v2/users/" + ts.bobID, org: "beta"}, 204)
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: ts.bob, org: "beta"}, 403, "invalid token")
}

func TestOrgsAPITokenStaysInItsOrg(t *testing.T) {
	ts := newTwoOrgs(t)
	ts.seed()
	// Naming the other org, or the other org's dataset, gets nothing.
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: ts.betaAPI, org: ts.org}, 403, "does not belong")
	ts.mustErr(req{method: "GET", path: "/v2/datasets/only-default", token: ts.betaAPI, noOrg: true}, 404, "not found")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/_apl", token: ts.betaAPI, noOrg: true,
		body: map[string]any{"apl": "['only-default'] | count"}}, 404, "only-default")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/only-default/ingest", token: ts.betaAPI, noOrg: true,
		contentType: "application/x-ndjson", body: `{"x":1}`}, 404, "not found")
	// Nor does the stored name of beta's dataset, seen from the default org.
	stored := orgStoragePrefix + "beta.only-beta"
	ts.mustErr(req{method: "GET", path: "/v2/datasets/" + stored, token: ts.adminAPI, noOrg: true}, 404, "not found")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/_apl", token: ts.adminAPI, noOrg: true,
		body: map[string]any{"apl": "['" + stored + "'] | count"}}, 404, "unknown dataset")
	ts.mustErr(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": stored}}, 400, "axiom-")
	if got := ts.names(ts.betaAPI, ""); !slices.Equal(got, []string{"logs", "only-beta"}) {
		t.Fatalf("beta token sees %v", got)
	}
}

func TestOrgsResourcesArePerOrg(t *testing.T) {
	ts := newTwoOrgs(t)
	ts.seed()
	// Tokens: each org lists its own.
	ts.must(req{method: "POST", path: "/v2/tokens", org: "beta", body: map[string]any{"name": "beta-made"}}, 200)
	listed := func(org string) []string {
		var toks []struct {
			Name string `json:"name"`
		}
		ts.must(req{method: "GET", path: "/v2/tokens", org: org}, 200).json(t, &toks)
		var out []string
		for _, tk := range toks {
			out = append(out, tk.Name)
		}
		sort.Strings(out)
		return out
	}
	if got := listed("beta"); !slices.Equal(got, []string{"beta-made", "first"}) {
		t.Fatalf("beta tokens %v", got)
	}
	if got := listed(ts.org); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("default tokens %v", got)
	}
	// Virtual fields of beta's logs do not reach the default org's logs.
	ts.must(req{method: "POST", path: "/v2/vfields", org: "beta",
		body: map[string]any{"dataset": "logs", "name": "twice", "expression": "n * 2"}}, 200)
	if got := ts.apl("", "beta", "['logs'] | summarize sum(twice)"); got[0] != float64(6) {
		t.Fatalf("beta vfield sum %v", got)
	}
	ts.mustErr(req{method: "POST", path: "/v1/datasets/_apl", org: ts.org,
		body: map[string]any{"apl": "['logs'] | summarize sum(twice)"}}, 400, "twice")
	// Users: bob is listed in beta only.
	users := func(org string) []string {
		var list []userView
		ts.must(req{method: "GET", path: "/v2/users", org: org}, 200).json(t, &list)
		var out []string
		for _, u := range list {
			out = append(out, u.Email+":"+u.Role.Name)
		}
		sort.Strings(out)
		return out
	}
	if got := users("beta"); !slices.Equal(got, []string{"admin@localhost:admin", "bob@example.com:user"}) {
		t.Fatalf("beta users %v", got)
	}
	if got := users(ts.org); !slices.Equal(got, []string{"admin@localhost:owner"}) {
		t.Fatalf("default users %v", got)
	}
	ts.mustErr(req{method: "GET", path: "/v2/users/" + ts.bobID, org: ts.org}, 404, "not found")
	// Adding bob to the default org keeps one user, with a role per org.
	var added userView
	ts.must(req{method: "POST", path: "/v2/users", org: ts.org,
		body: map[string]any{"name": "B", "email": "BOB@example.com", "role": "admin"}}, 200).json(t, &added)
	if added.ID != ts.bobID || added.Role.Name != "admin" {
		t.Fatalf("bob added to default %+v", added)
	}
	if got := ts.names(ts.bob, ts.org); !slices.Equal(got, []string{"logs", "only-default"}) {
		t.Fatalf("bob in default sees %v", got)
	}
	if got := users("beta"); !slices.Equal(got, []string{"admin@localhost:admin", "bob@example.com:user"}) {
		t.Fatalf("beta users after adding bob elsewhere %v", got)
	}
	// Starred queries and annotations are per org.
	ts.must(req{method: "POST", path: "/v2/annotations", org: "beta",
		body: map[string]any{"datasets": []string{"logs"}, "type": "deploy", "title": "beta"}}, 200)
	var anns []any
	ts.must(req{method: "GET", path: "/v2/annotations", org: ts.org}, 200).json(t, &anns)
	if len(anns) != 0 {
		t.Fatalf("default org sees beta's annotations: %v", anns)
	}
}

// A user's name is theirs in every org: beta's admin renames bob while he
// belongs to beta alone, not once he also belongs to the default org;
// bob still renames himself.
func TestOrgsRenameStaysInOrg(t *testing.T) {
	ts := newTwoOrgs(t)
	path := "/v2/users/" + ts.bobID
	ts.must(req{method: "PUT", path: path, token: ts.betaAPI, org: "beta", body: map[string]any{"name": "Bobby"}}, 200)
	if _, _, err := ts.s.meta.AddUser("bob@example.com", "", ts.org, "user", time.Now()); err != nil {
		t.Fatal(err)
	}
	ts.mustErr(req{method: "PUT", path: path, token: ts.betaAPI, org: "beta", body: map[string]any{"name": "Robert"}}, 403, "other organizations")
	// A role is per org: beta may still change bob's role there.
	ts.must(req{method: "PUT", path: path + "/role", token: ts.betaAPI, org: "beta", body: map[string]any{"role": "read-only"}}, 200)
	ts.must(req{method: "PUT", path: path, token: ts.bob, org: ts.org, body: map[string]any{"name": "Robert"}}, 200)
	var u struct {
		Name string `json:"name"`
	}
	ts.must(req{method: "GET", path: path, token: ts.adminAPI}, 200).json(t, &u)
	if u.Name != "Robert" {
		t.Fatalf("name %q after bob renamed himself", u.Name)
	}
}
