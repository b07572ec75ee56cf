package server

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// aplStatus is the part of a query's status these tests read.
type aplStatus struct {
	IsPartial   bool   `json:"isPartial"`
	CacheStatus int    `json:"cacheStatus"`
	MinCursor   string `json:"minCursor"`
	Messages    []struct {
		Priority string `json:"priority"`
		Count    int    `json:"count"`
		Code     string `json:"code"`
		Msg      string `json:"msg"`
	} `json:"messages"`
}

// warned reports whether the status carries a message with code.
func (s aplStatus) warned(code string) bool {
	for _, m := range s.Messages {
		if m.Code == code {
			return true
		}
	}
	return false
}

// ingestEvents sends events from..to-1 to ds, one second apart ending an
// hour ago; event i has n = i.
func (ts *testServer) ingestEvents(ds string, from, to int) {
	ts.t.Helper()
	var b strings.Builder
	base := time.Now().UTC().Add(-time.Hour)
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, `{"_time":%q,"n":%d}`+"\n", base.Add(-time.Duration(100000-i)*time.Second).Format(time.RFC3339Nano), i)
	}
	ts.ingestNDJSON(ds, b.String())
}

// aplRows runs an APL query in the tabular format and returns its row
// count and status.
func (ts *testServer) aplRows(body map[string]any) (int, aplStatus) {
	ts.t.Helper()
	var res struct {
		Status aplStatus `json:"status"`
		Tables []struct {
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: body}, 200).json(ts.t, &res)
	if len(res.Tables) == 0 || len(res.Tables[0].Columns) == 0 {
		return 0, res.Status
	}
	return len(res.Tables[0].Columns[0]), res.Status
}

// An explicit take or limit is honoured as asked; only a query and
// request without a limit get the default 1000, and the answer says so
// with default_limit_warning, in both formats and on the legacy query.
func TestAPLExplicitLimits(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("big")
	ts.createDataset("small")
	ts.ingestEvents("big", 0, 6000)
	ts.ingestEvents("small", 0, 3000)
	for _, c := range []struct {
		apl          string
		defaultLimit int
		rows         int
		warn         bool
	}{
		{apl: "['big'] | take 5000", rows: 5000},
		{apl: "['small'] | take 5000", rows: 3000},
		{apl: "['big'] | limit 5000", rows: 5000},
		{apl: "['big'] | sort by _time desc | take 5000", rows: 5000},
		{apl: "['big'] | top 5000 by n", rows: 5000},
		{apl: "['big']", rows: 1000, warn: true},
		{apl: "['small'] | sort by n", rows: 1000, warn: true},
		{apl: "['big'] | where n < 300", rows: 300},
		{apl: "['big']", defaultLimit: 2500, rows: 2500},
		{apl: "['big'] | take 5000", defaultLimit: 2500, rows: 2500},
	} {
		body := map[string]any{"apl": c.apl}
		if c.defaultLimit != 0 {
			body["defaultLimit"] = c.defaultLimit
		}
		n, st := ts.aplRows(body)
		if n != c.rows || st.IsPartial || st.warned("default_limit_warning") != c.warn {
			t.Errorf("%s (defaultLimit %d): %d rows, isPartial %v, messages %+v; want %d rows, warning %v",
				c.apl, c.defaultLimit, n, st.IsPartial, st.Messages, c.rows, c.warn)
		}
	}
	var legacy struct {
		Status  aplStatus        `json:"status"`
		Matches []map[string]any `json:"matches"`
	}
	ts.must(req{method: "POST", path: "/v1/datasets/_apl?format=legacy", body: map[string]any{"apl": "['big'] | take 5000"}}, 200).json(t, &legacy)
	if len(legacy.Matches) != 5000 || legacy.Status.warned("default_limit_warning") {
		t.Errorf("legacy format, take 5000: %d matches, messages %+v", len(legacy.Matches), legacy.Status.Messages)
	}
	for _, c := range []struct {
		body map[string]any
		rows int
		warn bool
	}{
		{map[string]any{"limit": 5000}, 5000, false},
		{map[string]any{"limit": 5000, "order": []map[string]any{{"field": "n", "desc": false}}}, 5000, false},
		{map[string]any{}, 1000, true},
	} {
		ts.must(req{method: "POST", path: "/v1/datasets/big/query", body: c.body}, 200).json(t, &legacy)
		if len(legacy.Matches) != c.rows || legacy.Status.warned("default_limit_warning") != c.warn {
			t.Errorf("legacy query %v: %d matches, messages %+v; want %d, warning %v", c.body, len(legacy.Matches), legacy.Status.Messages, c.rows, c.warn)
		}
	}
	ts.mustErr(req{method: "POST", path: "/v1/datasets/big/query", body: map[string]any{"limit": -1}}, 400, "limit must be between 0")
	// The default's message has the shape Axiom's clients decode.
	_, st := ts.aplRows(map[string]any{"apl": "['big']"})
	for _, m := range st.Messages {
		if m.Code == "default_limit_warning" && (m.Priority != "warn" || m.Count != 1 || m.Msg != "A default limit of 1000 was applied") {
			t.Errorf("default limit message %+v", m)
		}
	}
	ts.mustErr(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['big']", "defaultLimit": -1}}, 400, "defaultLimit")
	ts.mustErr(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": "['big']", "defaultLimit": 1000001}}, 400, "defaultLimit")
}
