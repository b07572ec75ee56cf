package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// hecSide is one of two servers alike but for the path HEC event bodies
// take: the direct decode into rows, or the NDJSON rewrite.
type hecSide struct {
	ts     *testServer
	direct bool
	toks   map[string]string // "wild", "logs" (only logs), "both" (logs and other)
}

func newHECSide(t *testing.T, direct bool) *hecSide {
	ts := newTestServer(t)
	ts.setLicense(func(l *meta.License) { l.MaxFields = 40 })
	ts.createDataset("logs")
	ts.createDataset("other")
	return &hecSide{ts: ts, direct: direct, toks: map[string]string{
		"wild": ts.newToken(ingestOn("*"), nil).Token,
		"logs": ts.newToken(ingestOn("logs"), nil).Token,
		"both": ts.newToken(ingestOn("logs", "other"), nil).Token,
	}}
}

func (sd *hecSide) post(path, tok, body string, extra ...string) resp {
	defer func(was bool) { hecDirect = was }(hecDirect)
	hecDirect = sd.direct
	return sd.ts.hec(path, "Splunk "+sd.toks[tok], body, extra...)
}

// rows is every stored event of ds as a sorted list of "field=value"
// lines, _sysTime left out and a _time within the last hour (the ingest
// time, which differs between the two servers) read as "now".
func (sd *hecSide) rows(t *testing.T, ds string) []string {
	var res struct {
		Tables []struct {
			Fields []struct {
				Name string `json:"name"`
			} `json:"fields"`
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	sd.ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular",
		body: map[string]any{"apl": "['" + ds + "'] | project-away _sysTime"}}, 200).json(t, &res)
	tb := res.Tables[0]
	var out []string
	for i := range tb.Columns[0] {
		var cells []string
		for c, f := range tb.Fields {
			v := tb.Columns[c][i]
			if f.Name == "_time" {
				if ts, err := time.Parse(time.RFC3339Nano, fmt.Sprint(v)); err == nil && time.Since(ts) < time.Hour {
					v = "now"
				}
			}
			b, _ := json.Marshal(v)
			cells = append(cells, f.Name+"="+string(b))
		}
		out = append(out, strings.Join(cells, ","))
	}
	slices.Sort(out)
	return out
}

// The direct decode answers every request as the NDJSON path does and
// stores the same rows: documented and sender-shaped bodies, hostile
// ones, refusals, every way of naming the dataset, the field cap and
// the rate limit.
func TestHECDirectMatchesNDJSONPath(t *testing.T) {
	direct, general := newHECSide(t, true), newHECSide(t, false)
	deep := strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70)
	wide := `{"event":{` + strings.Repeat(`"w`, 1)
	for i := range 45 {
		if i > 0 {
			wide += `,"w`
		}
		wide += fmt.Sprintf(`%d":%d`, i, i)
	}
	wide += `}}{"event":"narrow"}`
	const ev = "/services/collector/event"
	cases := []struct {
		what, path, tok, body string
		extra                 []string
		direct                bool // hecEventDirect takes it (DecodeHEC may still fall back)
	}{
		{"metadata example", ev, "wild", "{\n  \"time\": 1426279439,\n  \"host\": \"localhost\",\n  \"index\": \"logs\",\n  \"event\": \"Hello world!\"\n}", nil, true},
		{"fields example, gzip", ev + "/1.0?index=logs", "wild", `{"time": 1437522387, "host": "dataserver992.example.com", "event": { "message": "Something happened" }, "fields": {"region": "us-west-1"}}`, []string{"encoding", "gzip"}, true},
		{"token's one dataset", "/services/collector", "logs", `{"event": "Pony 1"}{"event": "Pony 2", "nested": {"key1": "value1"}}`, nil, true},
		{"first envelope's index", ev, "both", `{"event":"x","index":"other"}{"event":"y","index":"logs"}`, nil, true},
		{"bad time fails its event", ev + "?index=logs", "wild", `{"event":"a"}{"event":"b","time":"yesterday"}{"event":"c","time":[1]}`, nil, true},
		{"hostile values", ev + "?index=logs", "wild", `{"event":` + deep + `}{"event":{"n":123456789012345678901234567890,"f":1e400,"m":-0}}` +
			"{\"event\":{\"k\xff\":\"v\xfe\",\"s\":\"\\ud800\"}}" + `{"event":[1,{"a":null}]}{"event":-7.5}{"event":true}`, nil, true},
		{"repeated keys", ev + "?index=logs", "wild", `{"host":"a","host":"b","time":1,"time":1704164645,"event":{"host":"e","x":1,"x":"s"},"fields":{"x":true}}`, nil, true},
		{"repeated event", ev + "?index=logs", "wild", `{"event":"a","event":{"b":1}}`, nil, true},
		{"field cap", ev + "?index=logs", "wild", wide, nil, true},
		// Refusals: the body, then the dataset.
		{"no event", ev + "?index=logs", "wild", `{"event":"a"}{"host":"h"}`, nil, true},
		{"event null", ev + "?index=logs", "wild", `{"event":null}`, nil, true},
		{"event blank", ev + "?index=logs", "wild", `{"event":"a"}{"event":""}`, nil, true},
		{"fields not an object", ev + "?index=logs", "wild", `{"event":"a","fields":[1]}`, nil, true},
		{"index not a string", ev, "wild", `{"event":"a","index":5}`, nil, false},
		{"truncated", ev + "?index=logs", "wild", "{\"event\":\"a\"}\n{\"event\":{\"b\":", nil, true},
		{"not JSON", ev + "?index=logs", "wild", `hello`, nil, true},
		{"an array", ev + "?index=logs", "wild", `[{"event":"a"}]`, nil, true},
		{"no such dataset", ev, "wild", `{"event":"a","index":"nope"}`, nil, false},
		{"no such dataset, broken body", ev, "wild", `{"event":"a","index":"nope"}{"event":`, nil, false},
		{"broken body, good index", ev, "wild", `{"event":"a","index":"logs"}{"event":`, nil, true},
		{"not allowed", ev, "logs", `{"event":"a","index":"other"}`, nil, false},
		{"no dataset named", ev, "wild", `{"event":"a"}`, nil, false},
	}
	for _, tc := range cases {
		before := hecDirectBodies.Load()
		rd := direct.post(tc.path, tc.tok, tc.body, tc.extra...)
		took := hecDirectBodies.Load() > before
		rg := general.post(tc.path, tc.tok, tc.body, tc.extra...)
		if rd.status != rg.status || string(rd.body) != string(rg.body) {
			t.Errorf("%s: direct %d %s\nNDJSON path %d %s", tc.what, rd.status, rd.body, rg.status, rg.body)
		}
		if hecDirectBodies.Load() != before+btoi(took) {
			t.Fatalf("%s: the NDJSON path's server decoded directly", tc.what)
		}
		if took != tc.direct {
			t.Errorf("%s: taken by the direct decode %v, want %v", tc.what, took, tc.direct)
		}
	}
	// The ingest limit: spent by a body stored, not by one refused.
	for _, sd := range []*hecSide{direct, general} {
		sd.ts.driveLimits()
		sd.ts.setLicense(func(l *meta.License) { l.IngestLimitPerSecond = 1 })
	}
	for _, tc := range []struct{ what, body string }{
		{"refused under the limit", `{"event":`}, {"first", `{"event":"l1"}`},
		{"refused over the limit", `{"event":""}`}, {"over the limit", `{"event":"l2"}`},
	} {
		rd := direct.post(ev+"?index=logs", "wild", tc.body)
		rg := general.post(ev+"?index=logs", "wild", tc.body)
		if rd.status != rg.status || string(rd.body) != string(rg.body) || rd.header["Retry-After"] != rg.header["Retry-After"] ||
			rd.header["X-Ingestlimit-Remaining"] != rg.header["X-Ingestlimit-Remaining"] {
			t.Errorf("%s: direct %d %s %v\nNDJSON path %d %s %v", tc.what, rd.status, rd.body, rd.header, rg.status, rg.body, rg.header)
		}
	}
	for _, ds := range []string{"logs", "other"} {
		d, g := direct.rows(t, ds), general.rows(t, ds)
		if !slices.Equal(d, g) {
			t.Errorf("%s stored directly:\n%s\nthrough NDJSON:\n%s", ds, strings.Join(d, "\n"), strings.Join(g, "\n"))
		}
		if len(d) == 0 {
			t.Errorf("%s: nothing stored", ds)
		}
	}
}

func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
