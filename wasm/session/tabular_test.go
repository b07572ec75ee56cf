package session

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aplite/aplite/core/render"
)

// A result saved from a query and loaded back answers the same query
// with the same table: types (datetime, timespan, dynamic) survive.
func TestSavedResultLoadsBack(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", events, NDJSON)
	q := "['logs'] | extend d = 90s, tags = pack_array(method, status), ok = status < 400 | project _time, status, method, d, tags, ok"
	saved, err := s.Query(context.Background(), q, QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(saved)
	r, err := s.Load("saved", text, LoadOptions{})
	if err != nil || r.Format != Tabular || r.Ingested != 4 {
		t.Fatalf("load saved result: %+v %v", r, err)
	}
	again := mustQuery(t, s, "['saved'] | project _time, status, method, d, tags, ok", QueryOptions{})
	want := saved.Tables[0]
	if !reflect.DeepEqual(again.Fields, want.Fields) {
		t.Errorf("fields\n got %+v\nwant %+v", again.Fields, want.Fields)
	}
	g, _ := json.Marshal(sortedByTime(again))
	w, _ := json.Marshal(sortedByTime(&want))
	if string(g) != string(w) {
		t.Errorf("columns\n got %s\nwant %s", g, w)
	}
}

// sortedByTime returns a table's rows keyed by _time (the first column),
// so the comparison does not depend on the scan order of two datasets.
func sortedByTime(tab *render.TabularTable) map[string][]any {
	out := map[string][]any{}
	for i := range tab.Columns[0] {
		row := make([]any, len(tab.Columns))
		for j, c := range tab.Columns {
			row[j] = c[i]
		}
		out[tab.Columns[0][i].(string)] = row
	}
	return out
}

// A time-binned result loads with one event per bin at the bin's time.
func TestSavedTimeSeriesKeepsBins(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", events, NDJSON)
	saved, err := s.Query(context.Background(), "['logs'] | summarize n = count() by bin(_time, 1m)", QueryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := json.Marshal(saved)
	if _, err := s.Load("bins", text, LoadOptions{Format: Tabular}); err != nil {
		t.Fatal(err)
	}
	tab := mustQuery(t, s, "['bins'] | summarize total = sum(n), bins = count(), first = min(_time)", QueryOptions{})
	if got := column(t, tab, "total") + column(t, tab, "bins") + column(t, tab, "first"); got != `[4][3]["2024-03-26T10:00:00Z"]` {
		t.Errorf("bins loaded as %s", got)
	}
}
