package server

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

type annotationView struct {
	ID          string     `json:"id"`
	Datasets    []string   `json:"datasets"`
	Time        time.Time  `json:"time"`
	EndTime     *time.Time `json:"endTime"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	URL         string     `json:"url"`
	Type        string     `json:"type"`
}

func TestAnnotationCRUD(t *testing.T) {
	ts := newTestServer(t)
	var a, got, upd annotationView
	ts.must(req{method: "POST", path: "/v2/annotations", body: map[string]any{
		"datasets": []string{"a"}, "type": "deployment", "title": "T",
		"time": "2024-01-02T03:04:05+02:00"}}, 200).json(t, &a)
	if !strings.HasPrefix(a.ID, "ann_") || a.Type != "deployment" || a.Time.Format(time.RFC3339) != "2024-01-02T01:04:05Z" || a.EndTime != nil {
		t.Fatalf("created %+v", a)
	}
	ts.must(req{method: "GET", path: "/v2/annotations/" + a.ID}, 200).json(t, &got)
	if !reflect.DeepEqual(a, got) {
		t.Fatalf("get %+v != create %+v", got, a)
	}
	// Partial update: only the given fields change.
	ts.must(req{method: "PUT", path: "/v2/annotations/" + a.ID, body: map[string]any{"datasets": []string{"b"},
		"endTime": "2024-01-02T02:00:00Z"}}, 200).json(t, &upd)
	if upd.Title != "T" || upd.Type != "deployment" || upd.Datasets[0] != "b" || upd.EndTime == nil {
		t.Fatalf("updated %+v", upd)
	}
	// Without a time the request time is assigned.
	var now annotationView
	ts.must(req{method: "POST", path: "/v2/annotations", body: map[string]any{"datasets": []string{"a"}, "type": "x"}}, 200).json(t, &now)
	if time.Since(now.Time) > time.Minute {
		t.Fatalf("default time %v", now.Time)
	}
	ts.must(req{method: "DELETE", path: "/v2/annotations/" + a.ID}, 204)
	ts.mustErr(req{method: "GET", path: "/v2/annotations/" + a.ID}, 404, "not found")
	ts.mustErr(req{method: "PUT", path: "/v2/annotations/" + a.ID, body: map[string]any{"title": "x"}}, 404, "not found")
	ts.mustErr(req{method: "DELETE", path: "/v2/annotations/" + a.ID}, 404, "not found")
}

func TestAnnotationValidation(t *testing.T) {
	ts := newTestServer(t)
	post := func(body any) req { return req{method: "POST", path: "/v2/annotations", body: body} }
	ok := map[string]any{"datasets": []string{"a"}, "type": "deploy"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range ok {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	ts.mustErr(post(with("datasets", nil)), 400, "datasets is required")
	ts.mustErr(post(with("datasets", []string{})), 400, "at least one dataset")
	ts.mustErr(post(with("datasets", []string{""})), 400, "empty name")
	ts.mustErr(post(with("type", nil)), 400, "type is required")
	ts.mustErr(post(with("type", "Deploy!")), 400, "^[a-z0-9-]+$")
	ts.mustErr(post(with("type", strings.Repeat("a", 257))), 400, "type must be at most 256")
	ts.mustErr(post(with("title", strings.Repeat("a", 257))), 400, "title must be at most 256")
	ts.mustErr(post(with("description", strings.Repeat("a", 513))), 400, "description must be at most 512")
	ts.mustErr(post(with("url", strings.Repeat("a", 513))), 400, "url must be at most 512")
	ts.mustErr(post(with("time", "yesterday")), 400, "time")
	ts.mustErr(post(with("endTime", "2000-01-01T00:00:00Z")), 400, "endTime must not be before time")
	ts.mustErr(post("[1]"), 400, "invalid JSON")
	ts.must(post(with("title", strings.Repeat("é", 256))), 200) // characters, not bytes
	ts.mustErr(req{method: "GET", path: "/v2/annotations/not-an-ann"}, 400, "^ann_")
	ts.mustErr(req{method: "PUT", path: "/v2/annotations/x", body: map[string]any{}}, 400, "^ann_")
}

func TestAnnotationFilters(t *testing.T) {
	ts := newTestServer(t)
	mk := func(ds []string, tm string) string {
		var a annotationView
		ts.must(req{method: "POST", path: "/v2/annotations", body: map[string]any{"datasets": ds, "type": "t", "time": tm}}, 200).json(t, &a)
		return a.ID
	}
	a1 := mk([]string{"a"}, "2024-01-01T00:00:00Z")
	a2 := mk([]string{"b"}, "2024-02-01T00:00:00Z")
	a3 := mk([]string{"a", "c"}, "2024-03-01T00:00:00Z")
	list := func(query string) string {
		var out []annotationView
		ts.must(req{method: "GET", path: "/v2/annotations" + query}, 200).json(t, &out)
		ids := []string{}
		for _, a := range out {
			ids = append(ids, a.ID)
		}
		return strings.Join(ids, ",")
	}
	join := func(ids ...string) string { return strings.Join(ids, ",") }
	zero := url.QueryEscape("0001-01-01T00:00:00Z")
	cases := map[string]string{
		"":                                     join(a1, a2, a3),
		"?datasets=a":                          join(a1, a3),
		"?datasets=a,b":                        join(a1, a2, a3),
		"?datasets=b&datasets=c":               join(a2, a3),
		"?datasets%5B0%5D=b&datasets%5B1%5D=c": join(a2, a3),
		"?datasets[]=c":                        join(a3),
		"?start=2024-01-15T00:00:00Z":          join(a2, a3),
		"?end=2024-01-15T00:00:00Z":            join(a1),
		"?start=2024-01-15T00:00:00Z&end=2024-02-15T00:00:00.000000001Z": join(a2),
		"?datasets=a&start=2024-02-15T00:00:00%2B01:00":                  join(a3),
		"?datasets=a&start=" + zero + "&start=" + zero:                   join(a1, a3), // axiom-go < v0.37.1
		"?start=2024-01-15T00:00:00Z&start=2024-02-15T00:00:00Z":         join(a2),
		"?start=2024-01-15T00:00:00":                                     join(a2, a3), // naive ISO is UTC
		"?start=2024-01-15T00:00:00%2B00:00Z":                            join(a2, a3), // axiom-py's tz-aware form
	}
	for q, want := range cases {
		if got := list(q); got != want {
			t.Errorf("%s: got %s, want %s", q, got, want)
		}
	}
	ts.mustErr(req{method: "GET", path: "/v2/annotations?start=soon"}, 400, "start")
}
