package session

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
)

var testNow = time.Date(2024, 3, 27, 0, 0, 0, 0, time.UTC)

const events = `{"_time":"2024-03-26T10:00:00Z","status":200,"method":"GET","ms":1.5}
{"_time":"2024-03-26T10:00:30Z","status":404,"method":"GET","ms":2}
{"_time":"2024-03-26T10:01:10Z","status":200,"method":"POST","ms":3.25}
{"_time":"2024-03-26T10:02:00Z","status":500,"method":"GET","ms":"slow"}
`

func newTestSession(t *testing.T) *Session {
	t.Helper()
	s := New()
	s.now = func() time.Time { return testNow }
	return s
}

func mustLoad(t *testing.T, s *Session, name, data, format string) LoadResult {
	t.Helper()
	r, err := s.Load(name, []byte(data), LoadOptions{Format: format})
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return r
}

func mustQuery(t *testing.T, s *Session, apl string, o QueryOptions) *render.TabularTable {
	t.Helper()
	r, err := s.Query(context.Background(), apl, o)
	if err != nil {
		t.Fatalf("%s: %v", apl, err)
	}
	return &r.Tables[0]
}

// column returns the named column of a table as JSON, for comparisons
// that do not care about Go number types.
func column(t *testing.T, tab *render.TabularTable, name string) string {
	t.Helper()
	for i, f := range tab.Fields {
		if f.Name == name {
			b, _ := json.Marshal(tab.Columns[i])
			return string(b)
		}
	}
	t.Fatalf("no column %q in %+v", name, tab.Fields)
	return ""
}

func TestQueryLoadedNDJSON(t *testing.T) {
	s := newTestSession(t)
	r := mustLoad(t, s, "logs", events, Auto)
	if r.Format != NDJSON || r.Ingested != 4 || r.Failed != 0 || r.Dataset != "logs" {
		t.Fatalf("load result %+v", r)
	}
	tab := mustQuery(t, s, "['logs'] | summarize n = count() by status | order by status asc", QueryOptions{})
	if got := column(t, tab, "status"); got != "[200,404,500]" {
		t.Errorf("status = %s", got)
	}
	if got := column(t, tab, "n"); got != "[2,1,1]" {
		t.Errorf("n = %s", got)
	}
}

func TestTimeRangeBoundsTheQuery(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", events, NDJSON)
	o := QueryOptions{Start: time.Date(2024, 3, 26, 10, 0, 30, 0, time.UTC), End: time.Date(2024, 3, 26, 10, 2, 0, 0, time.UTC)}
	tab := mustQuery(t, s, "['logs'] | count", o)
	// [start, end): the event at 10:02:00 is out.
	if got := column(t, tab, "count"); got != "[2]" {
		t.Errorf("count in range = %s", got)
	}
	o.Start, o.End = o.End, o.Start
	if _, err := s.Query(context.Background(), "['logs'] | count", o); err == nil {
		t.Error("a range ending before it starts was accepted")
	}
}

func TestQueryErrorCarriesPosition(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", events, NDJSON)
	_, err := s.Query(context.Background(), "['logs']\n| where status ==", QueryOptions{})
	var qe *core.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("err = %v, want a *core.QueryError", err)
	}
	if qe.Line != 2 || qe.Col < 10 {
		t.Errorf("error at %d:%d (%s), want line 2 past the operator", qe.Line, qe.Col, qe.Msg)
	}
}

func TestUnknownDatasetIsAQueryError(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", events, NDJSON)
	_, err := s.Query(context.Background(), "['nope'] | count", QueryOptions{})
	var qe *core.QueryError
	if !errors.As(err, &qe) || qe.Line != 1 || !strings.Contains(qe.Msg, "nope") {
		t.Fatalf("err = %v, want a positioned error naming the dataset", err)
	}
}

func TestLoadReplacesTheDataset(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", events, NDJSON)
	mustLoad(t, s, "logs", events, NDJSON)
	if got := column(t, mustQuery(t, s, "['logs'] | count", QueryOptions{}), "count"); got != "[4]" {
		t.Errorf("count after loading twice = %s, want 4", got)
	}
}

func TestBrokenTextKeepsTheDataset(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", events, NDJSON)
	if _, err := s.Load("logs", []byte(`[{"a":1}, {"b":`), LoadOptions{Format: JSON}); err == nil {
		t.Fatal("truncated JSON loaded without error")
	}
	if got := column(t, mustQuery(t, s, "['logs'] | count", QueryOptions{}), "count"); got != "[4]" {
		t.Errorf("count after a failed load = %s, want the 4 events loaded before", got)
	}
}

func TestLoadRejects(t *testing.T) {
	s := newTestSession(t)
	for _, c := range []struct{ name, data, format string }{
		{"bad name!", events, NDJSON},
		{"logs", events, "xml"},
		{"logs", `{"format":"tabular","tables":[]}`, Tabular},
		{"logs", `{"format":"tabular","tables":[{"name":"0","fields":[{"name":"a","type":"integer"}],"columns":[]}]}`, Tabular},
		{"logs", `{"format":"tabular","tables":[{"name":"0","fields":[{"name":"a","type":"integer"},{"name":"b","type":"string"}],"columns":[[1,2],["x"]]}]}`, Tabular},
		{"logs", `{"format":"tabular","tables":[{"name":"0","fields":[{"name":"_time","type":"datetime"}],"columns":[["yesterday"]]}]}`, Tabular},
	} {
		if r, err := s.Load(c.name, []byte(c.data), LoadOptions{Format: c.format}); err == nil {
			t.Errorf("Load(%q, %.40q, %q) = %+v, want an error", c.name, c.data, c.format, r)
		}
	}
	if len(s.Datasets()) != 0 {
		t.Errorf("failed loads left datasets: %+v", s.Datasets())
	}
}

func TestNDJSONFailuresAreCounted(t *testing.T) {
	s := newTestSession(t)
	r := mustLoad(t, s, "mixed", "{\"a\":1}\n[1,2]\n{\"a\":2}\n", NDJSON)
	if r.Ingested != 2 || r.Failed != 1 || len(r.Failures) != 1 {
		t.Errorf("load result %+v, want 2 ingested and 1 failure", r)
	}
}

func TestDatasetsListFieldsWithTheirTypes(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", events, NDJSON)
	mustLoad(t, s, "csv", "a,b\n1,x\n", CSV)
	got := s.Datasets()
	if len(got) != 2 || got[0].Name != "csv" || got[1].Name != "logs" {
		t.Fatalf("datasets %+v", got)
	}
	logs := got[1]
	if logs.NumEvents != 4 || logs.MinTime != "2024-03-26T10:00:00Z" || logs.MaxTime != "2024-03-26T10:02:00Z" {
		t.Errorf("logs summary %+v", logs)
	}
	want := map[string]string{"_time": "datetime", "_sysTime": "datetime", "status": "integer",
		"method": "string", "ms": "float|integer|string"}
	for _, f := range logs.Fields {
		if want[f.Name] != f.Type {
			t.Errorf("field %s: type %q, want %q", f.Name, f.Type, want[f.Name])
		}
		delete(want, f.Name)
	}
	if len(want) > 0 {
		t.Errorf("fields missing: %v", want)
	}
	if err := s.Drop("csv"); err != nil || len(s.Datasets()) != 1 {
		t.Errorf("drop: %v, left %d datasets", err, len(s.Datasets()))
	}
	if err := s.Drop("csv"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("dropping twice: %v", err)
	}
}

// A loaded file is sealed when Load returns: the answers of the queries
// that follow do not change when the store's idle flush would have run.
func TestLoadIsSealed(t *testing.T) {
	s := newTestSession(t)
	mustLoad(t, s, "logs", "{\"a\":1}\n{\"a\":2}\n", NDJSON)
	info, err := s.db.Info("logs")
	if err != nil {
		t.Fatal(err)
	}
	if info.NumEvents != 2 || info.NumBlocks == 0 {
		t.Fatalf("after Load: %d events in %d blocks, want 2 events sealed", info.NumEvents, info.NumBlocks)
	}
}
