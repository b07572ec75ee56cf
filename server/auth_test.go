package server

import (
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

func TestAuthFailuresAre403JSON(t *testing.T) {
	ts := newTestServer(t)
	cases := []struct {
		name string
		r    req
		msg  string
	}{
		{"no header", req{token: "-"}, "missing or malformed Authorization"},
		{"malformed prefix", req{token: "abc123456789"}, "malformed token"},
		{"unknown token", req{token: "xapt-00000000000000000000"}, "invalid token"},
		{"unknown api token", req{token: "xaat-00000000000000000000"}, "invalid token"},
		{"missing org header", req{noOrg: true}, "missing X-Axiom-Org-Id"},
		{"unknown org", req{org: "nope"}, "organization \"nope\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.r
			r.method, r.path = "GET", "/v2/datasets"
			ts.mustErr(r, 403, c.msg)
		})
	}
	// Basic (not Bearer) auth is refused too.
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: "-",
		headers: map[string]string{"Authorization": "Basic Zm9vOmJhcg=="}}, 403, "Bearer")
}

func TestOrgHeaderSpellings(t *testing.T) {
	ts := newTestServer(t)
	// The specification's neutral spelling works like X-Axiom-Org-Id.
	ts.must(req{method: "GET", path: "/v2/datasets", noOrg: true,
		headers: map[string]string{"x-service-org-id": ts.org}}, 200)
	// /v2/user, /v1/user and /v2/orgs need no org header.
	for _, p := range []string{"/v2/user", "/v1/user", "/v2/orgs"} {
		ts.must(req{method: "GET", path: p, noOrg: true}, 200)
	}
}

func TestExpiredTokenIsRefused(t *testing.T) {
	ts := newTestServer(t)
	secret := meta.NewSecret(meta.PrefixAPI)
	rec := &meta.TokenRecord{APIToken: meta.APIToken{ID: "old", Name: "old", ExpiresAt: time.Now().Add(-time.Minute),
		DatasetCapabilities: map[string]meta.DatasetCaps{"*": {Query: []string{"read"}}}},
		Kind: meta.TokenAPI, OrgID: ts.org}
	if err := ts.s.meta.Update(func(tx *meta.Tx) error { return tx.PutToken(rec, secret) }); err != nil {
		t.Fatal(err)
	}
	ts.mustErr(req{method: "GET", path: "/v2/datasets", token: secret}, 403, "expired")
}

func TestPublicEndpointsAndUnknownRoutes(t *testing.T) {
	ts := newTestServer(t)
	ts.must(req{method: "GET", path: "/health", token: "-", noOrg: true}, 200)
	ts.mustErr(req{method: "GET", path: "/v2/nothing-here"}, 404, "no route")
	ts.mustErr(req{method: "PATCH", path: "/v2/datasets"}, 405, "not allowed")
	// Unknown query parameters are ignored.
	ts.must(req{method: "GET", path: "/v2/datasets?foo=bar&request=limit"}, 200)
}
