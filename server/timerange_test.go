package server

import (
	"testing"
	"time"
)

// A relative time past time.Duration's 292 years (now-1000y, now+1000y)
// moves the right way, not wrapped to the other side of now.
func TestParseTimeLongRelative(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]int{"now-1000y": 1026, "now+1000y": 3025, "now-300y": 1726, "now+10000000000000000y": 0} {
		got, err := parseTime(in, now)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if want == 0 {
			if !got.After(now.AddDate(1000000, 0, 0)) {
				t.Errorf("%s = %v, want far in the future", in, got)
			}
		} else if got.Year() != want {
			t.Errorf("%s = %v, want the year %d", in, got, want)
		}
	}
	if _, err := parseSpan("1000y"); err == nil {
		t.Error("parseSpan(1000y): no error for a span past 292 years")
	}
}

// A query's startTime or endTime past the years a datetime holds asks
// for everything up to that end: the events are counted, not 0.
func TestQueryTimeRangePastDatetime(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("l")
	ts.must(req{method: "POST", path: "/v1/datasets/l/ingest",
		body: `[{"_time":"2024-01-01T00:00:00Z"},{"_time":"2024-06-01T00:00:00Z"}]`, contentType: "application/json"}, 200)
	for _, r := range []map[string]any{
		{"endTime": "3000-01-01T00:00:00Z"},
		{"endTime": "2263-01-01T00:00:00Z", "startTime": "2000-01-01T00:00:00Z"},
		{"startTime": "1677-01-01T00:00:00Z"},
		{"startTime": "now-1000y", "endTime": "now+1000y"},
	} {
		r["apl"] = "l | count"
		var res tabular
		ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: r}, 200).json(t, &res)
		if c := res.Tables[0].Columns; len(c) != 1 || len(c[0]) != 1 || c[0][0] != float64(2) {
			t.Errorf("%v: count %v, want 2", r, c)
		}
	}
}

// A trim's maxDuration past time.Duration's 292 years is refused, naming
// it: it wrapped into a cut-off of 1734 whatever was asked, and the trim
// answered 204 as if done.
func TestTrimMaxDurationTooLong(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("l")
	ts.must(req{method: "POST", path: "/v1/datasets/l/ingest",
		body: `[{"_time":"2024-01-01T00:00:00Z"},{"_time":"2024-06-01T00:00:00Z"}]`, contentType: "application/json"}, 200)
	ts.mustErr(req{method: "POST", path: "/v2/datasets/l/trim", body: map[string]any{"maxDuration": "1000y"}}, 400, "maxDuration")
	var res tabular
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{
		"apl": "l | count", "startTime": "2000-01-01T00:00:00Z"}}, 200).json(t, &res)
	if c := res.Tables[0].Columns; c[0][0] != float64(2) {
		t.Errorf("after the refused trim: count %v, want 2", c)
	}
}
