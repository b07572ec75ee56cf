package core

import (
	"context"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

func TestExtend(t *testing.T) {
	runOpCases(t, []opCase{
		{q: "T | extend d = v * 2, e = d + 1 | project d, e | take 1", rows: [][]any{{int64(2), int64(3)}}},
		{q: "T | extend v = tostring(v) | project v | take 1", rows: [][]any{{"1"}}},
		{q: "T | extend n = v + r | project n", rows: [][]any{{2.5}, {nil}, {3.5}, {nil}}},
		{q: "T | extend x = nofn(v)", err: `unknown function "nofn"`},
		{q: "T | extend-valid r = 0.0, v = 7 | project r, v | take 1", rows: [][]any{{1.5, int64(7)}}},
		// A new field has no old value: an invalid result is null (Axiom's
		// page: extract on "1Paris" gives NULL); it was "" and 0.
		{q: `T | extend-valid s = iff(v == 1, "", k), z = v - 1, w = iff(v == 1, 2.0, real(null)) | project s, z, w`,
			rows: [][]any{{nil, nil, 2.0}, {"b", int64(1), nil}, {"a", int64(2), nil}, {"c", nil, nil}}},
		{q: `T | extend-valid s = extract("^([A-Za-z])", 1, "1Paris"), u = toupper(k) | project s, u | take 1`, rows: [][]any{{nil, "A"}}},
		{q: `T | extend-valid s = k, s = iff(v == 3, "", "x") | project s`, rows: [][]any{{"x"}, {"x"}, {"a"}, {"x"}}},
	})
}

// ingestion_time() is each row's _sysTime and cursor_current() its
// cursor (they were null: nothing substituted them).
func TestIngestionTimeAndCursor(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 2, true)))
	r, err := e.Query(context.Background(), &exec.Request{APL: "['logs'] | extend it = ingestion_time(), cc = cursor_current() | where it == _sysTime and isnotempty(cc) | count", DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Value(0, 0); got != int64(200) {
		t.Fatalf("%v rows have ingestion_time() == _sysTime and a cursor, want all 200", got)
	}
}
