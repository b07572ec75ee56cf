package server

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The door tests (Firehose, HEC, Heroku, syslog, the senders) read back
// what a door stored through these, one copy for all of them.

// rowsOf runs apl as the admin and returns each row as "field=value,..."
// over fields (a null cell left out), sorted, so unordered results
// compare.
func (ts *testServer) rowsOf(apl string, fields ...string) []string {
	ts.t.Helper()
	rows, err := ts.tryRows(apl, fields...)
	if err != nil {
		ts.t.Fatal(err)
	}
	return rows
}

// tryRows is rowsOf that returns a refused query as an error.
func (ts *testServer) tryRows(apl string, fields ...string) ([]string, error) {
	var res struct {
		Tables []struct {
			Fields []struct {
				Name string `json:"name"`
			} `json:"fields"`
			Columns [][]any `json:"columns"`
		} `json:"tables"`
	}
	r := ts.do(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]any{"apl": apl}})
	if r.status != 200 {
		return nil, fmt.Errorf("%s: status %d: %s", apl, r.status, r.body)
	}
	if err := json.Unmarshal(r.body, &res); err != nil || len(res.Tables) == 0 {
		return nil, fmt.Errorf("%s: %v in %s", apl, err, r.body)
	}
	tab := res.Tables[0]
	col := map[string][]any{}
	for i, f := range tab.Fields {
		col[f.Name] = tab.Columns[i]
	}
	var rows []string
	if len(tab.Columns) == 0 {
		return rows, nil
	}
	for r := range len(tab.Columns[0]) {
		var cells []string
		for _, f := range fields {
			if c, ok := col[f]; ok && c[r] != nil {
				cells = append(cells, fmt.Sprintf("%s=%v", f, c[r]))
			}
		}
		rows = append(rows, strings.Join(cells, ","))
	}
	slices.Sort(rows)
	return rows, nil
}
