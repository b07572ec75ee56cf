package server

import (
	"strings"
	"testing"
)

func TestDatasetCRUD(t *testing.T) {
	ts := newTestServer(t)
	var created, got, updated datasetView
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{
		"name": "web-logs", "description": "d", "useRetentionPeriod": false, "retentionDays": 0}}, 200).json(t, &created)
	if created.ID != "web-logs" || created.Name != "web-logs" || created.Kind != defaultDatasetKind ||
		created.Description != "d" || !created.CanWrite || created.Who == "" || created.Created.IsZero() {
		t.Fatalf("created %+v", created)
	}
	ts.must(req{method: "GET", path: "/v2/datasets/web-logs"}, 200).json(t, &got)
	if !got.Created.Equal(created.Created) || got.Description != "d" {
		t.Fatalf("get %+v differs from create %+v", got, created)
	}
	// v1 serves the same datasets.
	ts.must(req{method: "GET", path: "/v1/datasets/web-logs"}, 200)
	ts.must(req{method: "PUT", path: "/v2/datasets/web-logs", body: map[string]any{
		"description": "d2", "useRetentionPeriod": true, "retentionDays": 7}}, 200).json(t, &updated)
	if updated.Description != "d2" || !updated.UseRetentionPeriod || updated.RetentionDays != 7 {
		t.Fatalf("updated %+v", updated)
	}
	var list []datasetView
	ts.must(req{method: "GET", path: "/v2/datasets"}, 200).json(t, &list)
	if len(list) != 1 || list[0].Description != "d2" {
		t.Fatalf("list %+v", list)
	}
	ts.must(req{method: "DELETE", path: "/v2/datasets/web-logs"}, 204)
	ts.mustErr(req{method: "GET", path: "/v2/datasets/web-logs"}, 404, "not found")
	ts.mustErr(req{method: "DELETE", path: "/v2/datasets/web-logs"}, 404, "not found")
	ts.must(req{method: "GET", path: "/v1/datasets"}, 200).json(t, &list)
	if len(list) != 0 {
		t.Fatalf("list after delete %+v", list)
	}
}

func TestDatasetValidation(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("a")
	ts.mustErr(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "a"}}, 409, "already exists")
	for name, msg := range map[string]string{
		"":                      "name is required",
		strings.Repeat("x", 81): "at most 80",
		"-lead":                 "must not start or end",
		"trail.":                "must not start or end",
		"sp ace":                "may only contain",
		"axiom-reserved":        "reserved prefix",
	} {
		ts.mustErr(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": name}}, 400, msg)
	}
	ts.mustErr(req{method: "POST", path: "/v2/datasets", body: "{not json"}, 400, "invalid JSON")
	ts.mustErr(req{method: "POST", path: "/v2/datasets", body: ""}, 400, "body is empty")
	ts.mustErr(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": "b", "retentionDays": -1}}, 400, "retentionDays")
	ts.mustErr(req{method: "PUT", path: "/v2/datasets/missing", body: map[string]any{"description": "x"}}, 404, "not found")
	ts.mustErr(req{method: "PUT", path: "/v2/datasets/a", body: map[string]any{"useRetentionPeriod": true}}, 400, "retentionDays must be positive")
}

func TestMapFields(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	var names []string
	ts.must(req{method: "GET", path: "/v2/datasets/ds/mapfields"}, 200).json(t, &names)
	if names == nil || len(names) != 0 {
		t.Fatalf("empty map fields must be [], got %v", names)
	}
	var one map[string]string
	ts.must(req{method: "POST", path: "/v2/datasets/ds/mapfields", body: map[string]any{"name": "foo"}}, 200).json(t, &one)
	if len(one) != 1 || one["name"] != "foo" {
		t.Fatalf("create map field answered %v", one)
	}
	ts.must(req{method: "PUT", path: "/v2/datasets/ds/mapfields", body: []string{"foo", "bar"}}, 200).json(t, &names)
	if strings.Join(names, ",") != "foo,bar" {
		t.Fatalf("update answered %v", names)
	}
	var ds datasetView
	ts.must(req{method: "GET", path: "/v2/datasets/ds"}, 200).json(t, &ds)
	if strings.Join(ds.MapFields, ",") != "foo,bar" {
		t.Fatalf("dataset map fields %v", ds.MapFields)
	}
	ts.must(req{method: "DELETE", path: "/v2/datasets/ds/mapfields/foo"}, 204)
	ts.mustErr(req{method: "DELETE", path: "/v2/datasets/ds/mapfields/foo"}, 404, "map field")
	ts.must(req{method: "PUT", path: "/v2/datasets/ds/mapfields", body: []string{}}, 200).json(t, &names)
	if names == nil || len(names) != 0 {
		t.Fatalf("cleared map fields must be [], got %v", names)
	}
	ts.mustErr(req{method: "POST", path: "/v2/datasets/ds/mapfields", body: map[string]any{}}, 400, "name is required")
	ts.mustErr(req{method: "PUT", path: "/v2/datasets/ds/mapfields", body: map[string]any{"a": 1}}, 400, "invalid JSON")
	ts.mustErr(req{method: "GET", path: "/v2/datasets/nope/mapfields"}, 404, "not found")

	// A map field keeps its object as one dynamic value at ingest.
	ts.must(req{method: "POST", path: "/v2/datasets/ds/mapfields", body: map[string]any{"name": "attrs"}}, 200)
	ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest", contentType: "application/x-ndjson",
		body: `{"attrs":{"x":1,"y":"z"},"geo":{"city":"Paris"}}`}, 200)
	var fields []fieldInfo
	ts.must(req{method: "GET", path: "/v2/datasets/ds/fields"}, 200).json(t, &fields)
	types := map[string]string{}
	for _, f := range fields {
		types[f.Name] = f.Type
	}
	if types["attrs"] != "dynamic" || types["geo.city"] != "string" || types["attrs.x"] != "" {
		t.Fatalf("fields %+v", fields)
	}
}

func TestDatasetInfoAndTrim(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	ts.must(req{method: "POST", path: "/v1/datasets/ds/ingest", contentType: "application/x-ndjson",
		body: "{\"_time\":\"2020-01-01T00:00:00Z\",\"n\":1}\n{\"n\":2.5}\n"}, 200)
	var info infoView
	ts.must(req{method: "GET", path: "/v1/datasets/ds/info"}, 200).json(t, &info)
	if info.Name != "ds" || info.NumEvents != 2 || info.MinTime.Year() != 2020 || info.NumFields != 1 ||
		info.Fields[0].Type != "float|integer" {
		t.Fatalf("info %+v", info)
	}
	var v1 map[string]int64
	ts.must(req{method: "POST", path: "/v1/datasets/ds/trim", body: map[string]any{"maxDuration": "1h"}}, 200).json(t, &v1)
	if v, ok := v1["numDeleted"]; !ok || v != 0 || len(v1) != 1 {
		t.Fatalf("v1 trim answered %v", v1)
	}
	ts.must(req{method: "POST", path: "/v2/datasets/ds/trim", body: map[string]any{"maxDuration": "1h0m0s"}}, 204)
	ts.mustErr(req{method: "POST", path: "/v2/datasets/ds/trim", body: map[string]any{}}, 400, "maxDuration is required")
	ts.mustErr(req{method: "POST", path: "/v2/datasets/ds/trim", body: map[string]any{"maxDuration": "soon"}}, 400, "maxDuration")
	ts.mustErr(req{method: "POST", path: "/v2/datasets/nope/trim", body: map[string]any{"maxDuration": "1h"}}, 404, "not found")
	ts.mustErr(req{method: "GET", path: "/v1/datasets/nope/info"}, 404, "not found")
}
