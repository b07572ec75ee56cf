package server

import (
	"reflect"
	"testing"
	"time"
)

type tokenView struct {
	ID                  string                    `json:"id"`
	Name                string                    `json:"name"`
	Description         string                    `json:"description"`
	ExpiresAt           time.Time                 `json:"expiresAt"`
	DatasetCapabilities map[string]map[string]any `json:"datasetCapabilities"`
	OrgCapabilities     map[string]any            `json:"orgCapabilities"`
	SAMLAuthenticated   bool                      `json:"samlAuthenticated"`
	Token               string                    `json:"token"`
}

// newToken creates an API token with the given capabilities.
func (ts *testServer) newToken(ds map[string]any, org map[string]any) tokenView {
	ts.t.Helper()
	var tv tokenView
	ts.must(req{method: "POST", path: "/v2/tokens", body: map[string]any{
		"name": "t", "description": "d", "expiresAt": time.Now().Add(time.Hour),
		"datasetCapabilities": ds, "orgCapabilities": org}}, 200).json(ts.t, &tv)
	return tv
}

func TestTokenCRUDAndRegenerate(t *testing.T) {
	ts := newTestServer(t)
	created := ts.newToken(map[string]any{"*": map[string]any{"ingest": []string{"create"}, "query": nil}},
		map[string]any{"users": []string{"create", "read", "update", "delete"}})
	secret := created.Token
	if secret == "" || created.ID == "" || created.ExpiresAt.Location() != time.UTC {
		t.Fatalf("created %+v", created)
	}
	var got tokenView
	r := ts.must(req{method: "GET", path: "/v2/tokens/" + created.ID}, 200)
	r.json(t, &got)
	if got.Token != "" {
		t.Fatalf("get must not reveal the secret: %s", r.body)
	}
	created.Token = ""
	if !reflect.DeepEqual(created, got) {
		t.Fatalf("get %+v differs from create %+v", got, created)
	}
	var list []tokenView
	ts.must(req{method: "GET", path: "/v2/tokens"}, 200).json(t, &list)
	if len(list) != 1 || !reflect.DeepEqual(list[0], got) {
		t.Fatalf("list %+v (the admin's personal token must not be listed)", list)
	}
	ts.must(req{method: "GET", path: "/v2/users", token: secret}, 200)

	var regen tokenView
	ts.must(req{method: "POST", path: "/v2/tokens/" + created.ID + "/regenerate", body: map[string]any{
		"existingTokenExpiresAt": time.Now().Add(-time.Second), "newTokenExpiresAt": time.Now().Add(48 * time.Hour)}}, 200).json(t, &regen)
	if regen.ID == created.ID || regen.Token == "" || regen.Name != "t" || time.Until(regen.ExpiresAt) < 47*time.Hour {
		t.Fatalf("regenerated %+v", regen)
	}
	ts.mustErr(req{method: "GET", path: "/v2/users", token: secret}, 403, "expired")
	ts.must(req{method: "GET", path: "/v2/users", token: regen.Token}, 200)

	// Regenerate with a new payload replaces name and capabilities.
	var regen2 tokenView
	ts.must(req{method: "POST", path: "/v2/tokens/" + regen.ID + "/regenerate", body: map[string]any{
		"existingTokenExpiresAt": time.Now().Add(time.Minute),
		"newToken": map[string]any{"name": "replacement", "expiresAt": time.Now().Add(time.Hour),
			"datasetCapabilities": map[string]any{"*": map[string]any{"query": []string{"read"}}},
			"orgCapabilities":     map[string]any{"users": []string{"read"}}}}}, 200).json(t, &regen2)
	if regen2.Name != "replacement" || !reflect.DeepEqual(regen2.OrgCapabilities["users"], []any{"read"}) {
		t.Fatalf("regenerated with payload %+v", regen2)
	}

	ts.must(req{method: "DELETE", path: "/v2/tokens/" + regen2.ID}, 204)
	ts.mustErr(req{method: "GET", path: "/v2/users", token: regen2.Token}, 403, "invalid token")
	ts.mustErr(req{method: "GET", path: "/v2/tokens/" + regen2.ID}, 404, "not found")
	ts.mustErr(req{method: "DELETE", path: "/v2/tokens/" + regen2.ID}, 404, "not found")
	ts.mustErr(req{method: "POST", path: "/v2/tokens/nope/regenerate", body: map[string]any{
		"existingTokenExpiresAt": time.Now()}}, 404, "not found")
}

func TestTokenValidation(t *testing.T) {
	ts := newTestServer(t)
	tok := func(body map[string]any) req { return req{method: "POST", path: "/v2/tokens", body: body} }
	ts.mustErr(tok(map[string]any{}), 400, "name is required")
	ts.mustErr(tok(map[string]any{"name": "x", "expiresAt": time.Now().Add(-time.Hour)}), 400, "expiresAt")
	ts.mustErr(tok(map[string]any{"name": "x", "datasetCapabilities": map[string]any{"a": map[string]any{"query": []string{"peek"}}}}), 400, "unknown action \"peek\"")
	ts.mustErr(tok(map[string]any{"name": "x", "orgCapabilities": map[string]any{"users": []string{"own"}}}), 400, "orgCapabilities.users")
	ts.mustErr(tok(map[string]any{"name": "x", "datasetCapabilities": map[string]any{"": map[string]any{}}}), 400, "must not be empty")
	ts.mustErr(req{method: "POST", path: "/v2/tokens/x/regenerate", body: map[string]any{}}, 404, "not found")
	created := ts.newToken(nil, nil)
	ts.mustErr(req{method: "POST", path: "/v2/tokens/" + created.ID + "/regenerate", body: map[string]any{}}, 400, "existingTokenExpiresAt")
}

func TestScopedTokensAreEnforcedOnEveryRoute(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("a")
	ts.createDataset("b")
	ts.ingestNDJSON("a", "{\"x\":1}\n")
	ts.ingestNDJSON("b", "{\"x\":2}\n")
	queryA := ts.newToken(map[string]any{"a": map[string]any{"query": []string{"read"}}}, nil).Token
	ingestA := ts.newToken(map[string]any{"a": map[string]any{"ingest": []string{"create"}}}, nil).Token
	all := ts.newToken(map[string]any{"*": map[string]any{"query": []string{"read"}, "ingest": []string{"create"}}},
		map[string]any{"annotations": []string{"read"}}).Token

	apl := func(tok, q string) req {
		return req{method: "POST", path: "/v1/datasets/_apl?format=tabular", token: tok, body: map[string]any{"apl": q}}
	}
	ingest := func(tok, ds string) req {
		return req{method: "POST", path: "/v1/datasets/" + ds + "/ingest", token: tok, contentType: "application/x-ndjson", body: "{}"}
	}
	// Allowed.
	ts.must(apl(queryA, "['a'] | count"), 200)
	ts.must(ingest(ingestA, "a"), 200)
	ts.must(apl(all, "union ['a'], ['b'] | count"), 200)
	ts.must(ingest(all, "b"), 200)
	ts.must(req{method: "GET", path: "/v2/annotations", token: all}, 200)
	// API tokens need no org header, and a wrong one is refused.
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", token: queryA, noOrg: true,
		body: map[string]any{"apl": "['a'] | count"}}, 200)
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: queryA, org: "other"}, 403, "does not belong")

	// Denied.
	ts.mustErr(ingest(queryA, "a"), 403, "ingest into")
	ts.mustErr(apl(queryA, "['b'] | count"), 403, "b")
	ts.mustErr(apl(queryA, "union ['a'], ['b'] | count"), 403, "b")
	ts.mustErr(apl(queryA, "['a'] | join kind=inner (['b']) on x"), 403, "b")
	ts.mustErr(apl(ingestA, "['a'] | count"), 403, "a")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/b/query", token: queryA, body: map[string]any{}}, 403, "query")
	ts.mustErr(req{method: "POST", path: "/v2/datasets/a/trim", token: queryA, body: map[string]any{"maxDuration": "1h"}}, 403, "trim")
	ts.mustErr(req{method: "POST", path: "/v2/datasets", token: queryA, body: map[string]any{"name": "c"}}, 403, "datasets")
	ts.mustErr(req{method: "DELETE", path: "/v2/datasets/a", token: all}, 403, "datasets")
	ts.mustErr(req{method: "POST", path: "/v2/annotations", token: all, body: map[string]any{"datasets": []string{"a"}, "type": "x"}}, 403, "annotations")
	ts.mustErr(req{method: "GET", path: "/v2/monitors", token: all}, 403, "monitors")
	ts.mustErr(req{method: "GET", path: "/v2/tokens", token: all}, 403, "API tokens")
	ts.mustErr(req{method: "GET", path: "/v2/users", token: queryA}, 403, "users")
	ts.mustErr(req{method: "GET", path: "/v2/user", token: queryA}, 403, "API tokens")
	ts.mustErr(req{method: "GET", path: "/v2/dashboards", token: queryA}, 403, "dashboards")
	ts.mustErr(req{method: "GET", path: "/v2/rbac/groups", token: queryA}, 403, "RBAC")
	ts.mustErr(req{method: "GET", path: "/v2/notifiers", token: queryA}, 403, "notifiers")
	ts.mustErr(req{method: "POST", path: "/v2/vfields", token: queryA, body: map[string]any{
		"dataset": "a", "name": "v", "expression": "x"}}, 403, "virtual fields")
	ts.mustErr(req{method: "PUT", path: "/v2/orgs/" + ts.org, token: queryA, body: map[string]any{"name": "n"}}, 403, "organization")

	// Dataset listing shows only what the token may touch.
	var list []datasetView
	ts.must(req{method: "GET", path: "/v2/datasets", token: queryA}, 200).json(t, &list)
	if len(list) != 1 || list[0].Name != "a" || list[0].CanWrite {
		t.Fatalf("token list %+v", list)
	}
	ts.mustErr(req{method: "GET", path: "/v2/datasets/b", token: queryA}, 403, "b")
}
