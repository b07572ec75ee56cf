package server

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// The report: a token that may only read `logs` and manage API
// tokens minted a token for every dataset with ingest rights.
func TestTokenCannotEscalate(t *testing.T) {
	ts := newTestServer(t)
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "logs"}}, 200)
	weak := ts.newToken(map[string]any{"logs": map[string]any{"query": []string{"read"}}},
		map[string]any{"apiTokens": []string{"create", "read", "update"}})
	body := func(ds, org map[string]any) map[string]any {
		return map[string]any{"name": "x", "expiresAt": time.Now().Add(time.Hour), "datasetCapabilities": ds, "orgCapabilities": org}
	}
	ts.mustErr(req{method: "POST", path: "/v2/tokens", token: weak.Token, body: body(
		map[string]any{"*": map[string]any{"query": []string{"read"}, "ingest": []string{"create"}}},
		map[string]any{"users": []string{"create"}})}, 403, "cannot grant")
	// What it holds it may pass on, and less.
	var ok tokenView
	ts.must(req{method: "POST", path: "/v2/tokens", token: weak.Token, body: body(
		map[string]any{"logs": map[string]any{"query": []string{"read"}}},
		map[string]any{"apiTokens": []string{"read"}})}, 200).json(t, &ok)
	// Regenerating cannot raise a token either, with or without a new body.
	ts.mustErr(req{method: "POST", path: "/v2/tokens/" + ok.ID + "/regenerate", token: weak.Token, body: map[string]any{
		"existingTokenExpiresAt": time.Now().Add(time.Minute),
		"newToken":               body(map[string]any{"logs": map[string]any{"ingest": []string{"create"}}}, nil)}}, 403, "cannot grant")
	strong := ts.newToken(map[string]any{"*": map[string]any{"ingest": []string{"create"}}}, nil)
	ts.mustErr(req{method: "POST", path: "/v2/tokens/" + strong.ID + "/regenerate", token: weak.Token, body: map[string]any{
		"existingTokenExpiresAt": time.Now().Add(time.Minute)}}, 403, "cannot grant")
}

// Every dataset and org capability kind is checked, and wildcards cut one
// way: "*" may grant a named dataset, a named dataset may not grant "*".
func TestTokenCeilingEveryCapability(t *testing.T) {
	ts := newTestServer(t)
	dsFields := reflect.TypeOf(meta.DatasetCaps{})
	orgFields := reflect.TypeOf(meta.OrgCaps{})
	all := []string{"create", "read", "update", "delete"}
	allOrg := map[string]any{}
	for i := 0; i < orgFields.NumField(); i++ {
		allOrg[jsonName(orgFields.Field(i))] = all
	}
	allDS := map[string]any{}
	for i := 0; i < dsFields.NumField(); i++ {
		allDS[jsonName(dsFields.Field(i))] = all
	}
	// A caller with everything on "logs" (not "*") and API-token rights only.
	caller := ts.newToken(map[string]any{"logs": allDS}, map[string]any{"apiTokens": []string{"create"}})
	grant := func(ds, org map[string]any) (int, string) {
		r := ts.do(req{method: "POST", path: "/v2/tokens", token: caller.Token, body: map[string]any{
			"name": "x", "expiresAt": time.Now().Add(time.Hour), "datasetCapabilities": ds, "orgCapabilities": org}})
		return r.status, string(r.body)
	}
	for i := 0; i < dsFields.NumField(); i++ {
		name := jsonName(dsFields.Field(i))
		for _, action := range all {
			one := map[string]any{name: []string{action}}
			if code, b := grant(map[string]any{"logs": one}, nil); code != 200 {
				t.Errorf("granting logs.%s %s it holds: %d %s", name, action, code, b)
			}
			if code, b := grant(map[string]any{"*": one}, nil); code != 403 || !strings.Contains(b, name) {
				t.Errorf("granting *.%s %s from a logs-only token: %d %s", name, action, code, b)
			}
			if code, b := grant(map[string]any{"other": one}, nil); code != 403 {
				t.Errorf("granting other.%s %s: %d %s", name, action, code, b)
			}
		}
	}
	for i := 0; i < orgFields.NumField(); i++ {
		name := jsonName(orgFields.Field(i))
		for _, action := range all {
			code, b := grant(nil, map[string]any{name: []string{action}})
			held := name == "apiTokens" && action == "create"
			if held && code != 200 || !held && (code != 403 || !strings.Contains(b, name)) {
				t.Errorf("granting org %s %s: %d %s", name, action, code, b)
			}
		}
	}
	// A "*" holder may grant a named dataset.
	star := ts.newToken(map[string]any{"*": map[string]any{"query": []string{"read"}}}, map[string]any{"apiTokens": []string{"create"}})
	ts.must(req{method: "POST", path: "/v2/tokens", token: star.Token, body: map[string]any{
		"name": "x", "expiresAt": time.Now().Add(time.Hour),
		"datasetCapabilities": map[string]any{"logs": map[string]any{"query": []string{"read"}}}}}, 200)
	// A personal token holds its user's role (the org owner): it grants all.
	ts.must(req{method: "POST", path: "/v2/tokens", body: map[string]any{
		"name": "x", "expiresAt": time.Now().Add(time.Hour), "datasetCapabilities": map[string]any{"*": allDS}, "orgCapabilities": allOrg}}, 200)
}
