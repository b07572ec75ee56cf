package core

import (
	"context"
	"testing"
)

func TestExtend(t *testing.T) {
	runOpCases(t, []opCase{
		{q: "T | extend d = v * 2, e = d + 1 | project d, e | take 1", rows: [][]any{{int64(2), int64(3)}}},
		{q: "T | extend v = tostring(v) | project v | take 1", rows: [][]any{{"1"}}},
		{q: "T | extend n = v + r | project n", rows: [][]any{{2.5}, {nil}, {3.5}, {nil}}},
		{q: "T | extend x = nofn(v)", err: `unknown function "nofn"`},
		{q: "T | extend-valid r = 0.0, v = 7 | project r, v | take 1", rows: [][]any{{1.5, int64(7)}}},
	})
}

// ingestion_time() is each row's _sysTime and cursor_current() its
// cursor (they were null: nothing substituted them).
func TestIngestionTimeAndCursor(t *testing.T) {
	e := NewEngine(StoreCatalog(fixtureDB(t, 2, true)))
	r, err := e.Query(context.Background(), &Request{APL: "['logs'] | extend it = ingestion_time(), cc = cursor_current() | where it == _sysTime and isnotempty(cc) | count", DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Value(0, 0); got != int64(200) {
		t.Fatalf("%v rows have ingestion_time() == _sysTime and a cursor, want all 200", got)
	}
}
