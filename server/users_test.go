package server

import (
	"reflect"
	"testing"
)

type userView struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Role  struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"role"`
}

func TestCurrentUser(t *testing.T) {
	ts := newTestServer(t)
	var u userView
	ts.must(req{method: "GET", path: "/v2/user", noOrg: true}, 200).json(t, &u)
	if u.ID == "" || u.Email == "" || u.Role.Name != "owner" {
		t.Fatalf("user %+v", u)
	}
	var v1 map[string]any
	ts.must(req{method: "GET", path: "/v1/user", noOrg: true}, 200).json(t, &v1)
	if v1["id"] != u.ID || !reflect.DeepEqual(v1["emails"], []any{u.Email}) || len(v1) != 3 {
		t.Fatalf("v1 user %v", v1)
	}
}

func TestUsersCRUD(t *testing.T) {
	ts := newTestServer(t)
	var u, got, upd userView
	ts.must(req{method: "POST", path: "/v2/users", body: map[string]any{"name": "Ann", "email": "ann@x.io", "role": "user"}}, 200).json(t, &u)
	if u.ID == "" || u.Role.ID != "user" {
		t.Fatalf("created %+v", u)
	}
	ts.must(req{method: "GET", path: "/v2/users/" + u.ID}, 200).json(t, &got)
	if got != u {
		t.Fatalf("get %+v != %+v", got, u)
	}
	ts.must(req{method: "PUT", path: "/v2/users/" + u.ID, body: map[string]any{"name": "Anne"}}, 200).json(t, &upd)
	if upd.Name != "Anne" || upd.Email != u.Email {
		t.Fatalf("updated %+v", upd)
	}
	ts.must(req{method: "PUT", path: "/v2/users/" + u.ID + "/role", body: map[string]any{"role": "admin"}}, 200).json(t, &upd)
	if upd.Role.ID != "admin" || upd.Name != "Anne" {
		t.Fatalf("role update %+v", upd)
	}
	var list []userView
	ts.must(req{method: "GET", path: "/v2/users"}, 200).json(t, &list)
	if len(list) != 2 {
		t.Fatalf("users %+v", list)
	}
	ts.mustErr(req{method: "POST", path: "/v2/users", body: map[string]any{"name": "B", "email": "ANN@x.io", "role": "user"}}, 409, "already exists")
	ts.mustErr(req{method: "POST", path: "/v2/users", body: map[string]any{"name": "B", "email": "b@x.io"}}, 400, "required")
	ts.mustErr(req{method: "POST", path: "/v2/users", body: map[string]any{"name": "B", "email": "nope", "role": "user"}}, 400, "email")
	ts.mustErr(req{method: "PUT", path: "/v2/users/" + u.ID, body: map[string]any{}}, 400, "name is required")
	ts.mustErr(req{method: "PUT", path: "/v2/users/" + u.ID + "/role", body: map[string]any{"role": ""}}, 400, "role is required")
	ts.must(req{method: "DELETE", path: "/v2/users/" + u.ID}, 204)
	ts.mustErr(req{method: "GET", path: "/v2/users/" + u.ID}, 404, "not found")
	ts.mustErr(req{method: "PUT", path: "/v2/users/" + u.ID, body: map[string]any{"name": "x"}}, 404, "not found")
	ts.mustErr(req{method: "DELETE", path: "/v2/users/" + u.ID}, 404, "not found")
	var me userView
	ts.must(req{method: "GET", path: "/v2/user", noOrg: true}, 200).json(t, &me)
	ts.mustErr(req{method: "DELETE", path: "/v2/users/" + me.ID}, 409, "owns the server")
}

func TestOrgs(t *testing.T) {
	ts := newTestServer(t)
	var list []map[string]any
	ts.must(req{method: "GET", path: "/v2/orgs", noOrg: true}, 200).json(t, &list)
	if len(list) != 1 || list[0]["id"] != ts.org {
		t.Fatalf("orgs %v", list)
	}
	o := list[0]
	for _, k := range []string{"id", "name", "slug", "plan", "planCreated", "lastUsageSync", "role", "primaryEmail",
		"license", "paymentStatus", "metaCreated", "metaModified"} {
		if _, ok := o[k]; !ok {
			t.Errorf("org lacks %q", k)
		}
	}
	if lic := o["license"].(map[string]any); lic["apiRateLimitPerSecond"] == nil || lic["maxQueryWindowSeconds"] == nil {
		t.Errorf("license %v", lic)
	}
	var got, upd map[string]any
	ts.must(req{method: "GET", path: "/v2/orgs/" + ts.org}, 200).json(t, &got)
	if !reflect.DeepEqual(got, o) {
		t.Fatalf("get %v != list entry %v", got, o)
	}
	ts.must(req{method: "PUT", path: "/v2/orgs/" + ts.org, body: map[string]any{"name": "Acme"}}, 200).json(t, &upd)
	if upd["name"] != "Acme" || upd["id"] != ts.org {
		t.Fatalf("updated %v", upd)
	}
	ts.must(req{method: "GET", path: "/v2/orgs/" + ts.org}, 200).json(t, &got)
	if got["name"] != "Acme" {
		t.Fatalf("rename not kept: %v", got)
	}
	ts.mustErr(req{method: "PUT", path: "/v2/orgs/" + ts.org, body: map[string]any{}}, 400, "name is required")
	ts.mustErr(req{method: "PUT", path: "/v2/orgs/" + ts.org, body: map[string]any{"name": " "}}, 400, "name is required")
	ts.mustErr(req{method: "GET", path: "/v2/orgs/other"}, 404, "not found")
	ts.mustErr(req{method: "PUT", path: "/v2/orgs/other", body: map[string]any{"name": "x"}}, 404, "not found")
}
