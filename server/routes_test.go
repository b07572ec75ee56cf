package server

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// routeRow is one row of the table in docs/ROUTES.md.
type routeRow struct {
	method, path string
	tokens       string // none, "personal, API", personal, cluster secret
	capability   string // -, any valid token, org K:A, dataset K:A[ or K:A]
	line         int
}

func (r routeRow) key() string { return r.method + " " + r.path }

// routesDoc is the table the tests hold the router to.
const routesDoc = "../docs/ROUTES.md"

// readRouteTable parses the rows of the route table (lines that start with
// "| <METHOD> |").
func readRouteTable(t *testing.T, path string) []routeRow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
	var rows []routeRow
	for i, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 7 || !slices.Contains(methods, strings.TrimSpace(cells[1])) {
			continue
		}
		rows = append(rows, routeRow{method: strings.TrimSpace(cells[1]), path: strings.TrimSpace(cells[2]),
			tokens: strings.TrimSpace(cells[3]), capability: strings.TrimSpace(cells[4]), line: i + 1})
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no route rows found", path)
	}
	return rows
}

// registeredRoutes lists the router's routes as "METHOD path".
func registeredRoutes(s *Server) []string {
	var out []string
	for method, paths := range s.routes().List() {
		for _, p := range paths {
			out = append(out, method+" "+p)
		}
	}
	sort.Strings(out)
	return out
}

// TestRouteTableMatchesRouter fails when a registered route has no row in
// docs/ROUTES.md, a row names a route the router lacks, a row appears
// twice, or a row's token or capability column is not one the enforcement
// test understands.
func TestRouteTableMatchesRouter(t *testing.T) {
	ts := newTestServer(t)
	// One request first: a fasthttp server shut down before Serve has
	// begun never returns from Serve, and the cleanup would wait forever.
	ts.must(req{method: "GET", path: "/health"}, 200)
	rows := readRouteTable(t, routesDoc)
	if problems := compareRoutes(registeredRoutes(ts.s), rows); len(problems) > 0 {
		t.Fatalf("docs/ROUTES.md and the router disagree:\n%s", strings.Join(problems, "\n"))
	}
}

// compareRoutes returns one line per disagreement between the router's
// routes and the table's rows.
func compareRoutes(registered []string, rows []routeRow) []string {
	var problems []string
	table := map[string]routeRow{}
	for _, r := range rows {
		if prev, dup := table[r.key()]; dup {
			problems = append(problems, fmt.Sprintf("line %d: %s is already listed on line %d", r.line, r.key(), prev.line))
		}
		table[r.key()] = r
		if !slices.Contains([]string{"none", "personal, API", "personal", "cluster secret"}, r.tokens) {
			problems = append(problems, fmt.Sprintf("line %d: %s: unknown tokens %q", r.line, r.key(), r.tokens))
		}
		if _, _, err := parseCapability(r.capability); err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %s: %v", r.line, r.key(), err))
		}
	}
	for _, k := range registered {
		if _, ok := table[k]; !ok {
			problems = append(problems, fmt.Sprintf("router has %s but the table has no row for it", k))
		}
	}
	for _, r := range rows {
		if !slices.Contains(registered, r.key()) {
			problems = append(problems, fmt.Sprintf("line %d: the table lists %s but the router has no such route", r.line, r.key()))
		}
	}
	return problems
}

// TestCompareRoutesCatchesDrift proves the comparison can fail: a route
// missing from the table, a stale row and a malformed capability are all
// reported.
func TestCompareRoutesCatchesDrift(t *testing.T) {
	rows := []routeRow{
		{method: "GET", path: "/a", tokens: "none", capability: "-", line: 1},
		{method: "GET", path: "/gone", tokens: "personal, API", capability: "org users:read", line: 2},
		{method: "PUT", path: "/a", tokens: "personal, API", capability: "org users:fly", line: 3},
		{method: "GET", path: "/a", tokens: "nobody", capability: "-", line: 4},
	}
	got := strings.Join(compareRoutes([]string{"GET /a", "PUT /a", "POST /new"}, rows), "\n")
	for _, want := range []string{"POST /new but the table has no row", "lists GET /gone", `unknown action "fly"`,
		"already listed on line 1", `unknown tokens "nobody"`} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
}

// parseCapability reads the capability column: scope is "", "any", "org"
// or "dataset"; caps are "kind:action" alternatives (any one suffices).
func parseCapability(s string) (scope string, caps [][2]string, err error) {
	switch s {
	case "-":
		return "", nil, nil
	case "any valid token":
		return "any", nil, nil
	}
	scope, rest, ok := strings.Cut(s, " ")
	if !ok || (scope != "org" && scope != "dataset") {
		return "", nil, fmt.Errorf("capability %q: want -, any valid token, org K:A or dataset K:A", s)
	}
	for _, alt := range strings.Split(rest, " or ") {
		kind, action, ok := strings.Cut(strings.TrimSpace(alt), ":")
		if !ok || kind == "" {
			return "", nil, fmt.Errorf("capability %q: want kind:action", s)
		}
		if !slices.Contains([]string{actCreate, actRead, actUpdate, actDelete}, action) {
			return "", nil, fmt.Errorf("capability %q: unknown action %q", s, action)
		}
		caps = append(caps, [2]string{kind, action})
	}
	return scope, caps, nil
}

// routeProbe is what a route needs to reach its permission check: path
// parameters, a body, headers.
type routeProbe struct {
	query   string
	body    any
	headers map[string]string
}

// TestRouteTableEnforced calls every route of the table as it says
// callers may and may not: without a token, with an API token holding no
// capability, with one holding only the listed capability, and with the
// admin's personal token; a 403 where the table allows, or anything else
// where it forbids, fails.
func TestRouteTableEnforced(t *testing.T) {
	const secret = "route-table-cluster-secret"
	ts := newTestServerConfig(t, Config{ClusterSecret: secret})
	rows := readRouteTable(t, routesDoc)

	// Fixtures: the routes that load their record before checking the
	// caller need one to exist.
	ts.createDataset("ds")
	ts.must(req{method: "POST", path: "/v2/datasets/ds/mapfields", body: map[string]any{"name": "mf"}}, 200)
	id := func(path string, body any) string {
		var v struct {
			ID string `json:"id"`
		}
		ts.must(req{method: "POST", path: path, body: body}, 200).json(t, &v)
		return v.ID
	}
	ids := map[string]string{
		"/v2/annotations":         id("/v2/annotations", map[string]any{"datasets": []string{"ds"}, "type": "deploy"}),
		"/v2/rbac/groups":         id("/v2/rbac/groups", map[string]any{"name": "ops"}),
		"/v2/vfields":             id("/v2/vfields", map[string]any{"dataset": "ds", "name": "v", "expression": "1"}),
		"/v2/apl-starred-queries": id("/v2/apl-starred-queries", map[string]any{"name": "s", "dataset": "ds", "query": map[string]any{"apl": "['ds']"}}),
		"/v2/monitors":            id("/v2/monitors", map[string]any{"name": "m", "aplQuery": "['ds'] | count", "operator": "Above"}),
		"/v2/notifiers":           id("/v2/notifiers", map[string]any{"name": "n", "properties": map[string]any{"webhook": map[string]any{"url": "http://example.com/hook"}}}),
		"/v2/users":               id("/v2/users", map[string]any{"name": "U", "email": "u@x.io", "role": "user"}),
		"/v2/tokens":              ts.newToken(nil, nil).ID,
		"/v2/orgs":                ts.org,
		"/v2/datasets":            "ds",
		"/v1/datasets":            "ds",
		"/v2/dashboards":          "dash-1",
		"/v2/dashboards/uid":      "dash-1",
	}
	ts.must(req{method: "POST", path: "/v2/dashboards", body: map[string]any{"uid": "dash-1", "dashboard": map[string]any{"name": "d"}}}, 200)

	// urlOf fills the path parameters of a route pattern.
	urlOf := func(pattern string) string {
		p := strings.Replace(pattern, "{filepath:*}", "index.html", 1)
		p = strings.Replace(p, "{name}", "mf", 1)
		if before, _, ok := strings.Cut(p, "/{id}"); ok {
			v, known := ids[before]
			if !known {
				v = "ds" // ingest and query routes name a dataset
			}
			p = strings.Replace(p, "{id}", v, 1)
		}
		return p
	}
	probes := map[string]routeProbe{
		"POST /v1/datasets/{id}/ingest":      {body: `[{"a":1}]`},
		"POST /v1/ingest/{id}":               {body: `[{"a":1}]`},
		"POST /v1/ingest/{id}/firehose":      {body: `{"requestId":"r","records":[{"data":"eyJhIjoxfQ=="}]}`},
		"POST /v1/datasets/_apl":             {body: map[string]any{"apl": "['ds']"}},
		"POST /v1/query/_apl":                {body: map[string]any{"apl": "['ds']"}},
		"POST /v1/datasets/{id}/query":       {body: map[string]any{}},
		"POST /v1/ingest/{id}/elastic/_bulk": {body: "{\"index\":{}}\n{\"a\":1}\n"},
		"PUT /v1/ingest/{id}/elastic/_bulk":  {body: "{\"index\":{}}\n{\"a\":1}\n"},
		"POST /v1/traces":                    {headers: map[string]string{"X-Axiom-Dataset": "ds"}},
		"POST /v1/logs":                      {headers: map[string]string{"X-Axiom-Dataset": "ds"}},
		"POST /v1/metrics":                   {headers: map[string]string{"X-Axiom-Dataset": "ds"}},

		// Splunk HEC: the dataset from ?index=.
		"POST /services/collector":           {query: "?index=ds", body: `{"event":"x"}`},
		"POST /services/collector/event":     {query: "?index=ds", body: `{"event":"x"}`},
		"POST /services/collector/event/1.0": {query: "?index=ds", body: `{"event":"x"}`},
		"POST /services/collector/raw":       {query: "?index=ds", body: `{"a":1}`},
		"POST /services/collector/raw/1.0":   {query: "?index=ds", body: `{"a":1}`},
		"POST /v2/datasets/{id}/mapfields":   {body: map[string]any{"name": "mf2"}},
		"PUT /v2/datasets/{id}/mapfields":    {body: []string{"mf"}},
		"PUT /v2/users/{id}":                 {body: map[string]any{"name": "V"}},
		"PUT /v2/users/{id}/role":            {body: map[string]any{"role": "user"}},
		"GET /v2/vfields":                    {query: "?dataset=ds"},
		"POST /v2/vfields":                   {body: map[string]any{"dataset": "ds", "name": "w", "expression": "2"}},
		"POST /v2/apl-starred-queries":       {body: map[string]any{"name": "t", "dataset": "ds", "query": map[string]any{"apl": "['ds']"}}},
		"POST /internal/v1/fragment":         {body: "{}"},
	}
	call := func(r routeRow, token string, extra map[string]string) resp {
		pr := probes[r.key()]
		q := req{method: r.method, path: urlOf(r.path) + pr.query, body: pr.body, token: token, headers: map[string]string{}}
		for k, v := range pr.headers {
			q.headers[k] = v
		}
		for k, v := range extra {
			q.headers[k] = v
		}
		if token != ts.token {
			q.noOrg = true // API tokens know their org; no token needs none
		}
		return ts.do(q)
	}
	// tokenWith returns an API token holding exactly caps on scope, for
	// dataset ds when the scope is a dataset's. Routes with the same
	// capability share a token, as each costs a metadata write.
	made := map[string]string{}
	tokenWith := func(scope, dataset string, caps [][2]string) string {
		key := fmt.Sprint(scope, dataset, caps)
		if tok, ok := made[key]; ok {
			return tok
		}
		ds, org := map[string]any{}, map[string]any{}
		for _, c := range caps {
			if scope == "dataset" {
				ds[dataset] = map[string]any{c[0]: []string{c[1]}}
			} else {
				org[c[0]] = []string{c[1]}
			}
		}
		made[key] = ts.newToken(ds, org).Token
		return made[key]
	}
	bare := ts.newToken(nil, nil).Token
	where := func(r routeRow, who string, got resp) string {
		return fmt.Sprintf("docs/ROUTES.md:%d %s %s as %s: %d %s", r.line, r.method, r.path, who, got.status, got.body)
	}

	// Denials first, while every fixture exists; the allowed calls may
	// delete them, so DELETE routes go last.
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].method != "DELETE" && rows[j].method == "DELETE" })
	for _, r := range rows {
		scope, caps, err := parseCapability(r.capability)
		if err != nil {
			t.Fatal(err)
		}
		switch r.tokens {
		case "none":
			continue
		case "cluster secret":
			if got := call(r, "-", nil); got.status != 403 {
				t.Errorf("%s: want 403 without the cluster secret", where(r, "no secret", got))
			}
			continue
		}
		noToken := 403
		if isHECPath([]byte(r.path)) {
			noToken = 401 // Splunk's "Token is required"
		}
		if got := call(r, "-", nil); got.status != noToken {
			t.Errorf("%s: want %d without a token", where(r, "no token", got), noToken)
		}
		if r.tokens == "personal" || scope == "org" || scope == "dataset" {
			if got := call(r, bare, nil); got.status != 403 {
				t.Errorf("%s: want 403 for an API token without %s", where(r, "API token without capabilities", got), r.capability)
			}
		}
		if scope == "dataset" {
			// The capability on another dataset does not count.
			if got := call(r, tokenWith(scope, "other", caps[:1]), nil); got.status != 403 {
				t.Errorf("%s: want 403 for the capability on another dataset", where(r, "API token for dataset other", got))
			}
		}
	}
	for _, r := range rows {
		scope, caps, _ := parseCapability(r.capability)
		switch r.tokens {
		case "none":
			if got := call(r, "-", nil); got.status == 403 || got.status == 401 {
				t.Errorf("%s: the table says no token is needed", where(r, "no token", got))
			}
			continue
		case "cluster secret":
			if got := call(r, "-", map[string]string{clusterSecretHeader: secret}); got.status == 403 {
				t.Errorf("%s: the cluster secret must be enough", where(r, "cluster secret", got))
			}
			continue
		case "personal, API":
			if len(caps) == 0 {
				if got := call(r, bare, nil); got.status == 403 {
					t.Errorf("%s: the table says any valid token is enough", where(r, "API token without capabilities", got))
				}
			}
			for _, c := range caps { // each alternative alone suffices
				if got := call(r, tokenWith(scope, "ds", [][2]string{c}), nil); got.status == 403 {
					t.Errorf("%s: the table says %s:%s is enough", where(r, "API token with "+c[0]+":"+c[1], got), c[0], c[1])
				}
			}
		}
		if got := call(r, ts.token, nil); got.status == 403 {
			t.Errorf("%s: personal tokens may call every route", where(r, "personal token", got))
		}
	}
}
