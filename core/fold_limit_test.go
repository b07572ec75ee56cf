package core

import (
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/output"
)

// A large constant stays out of the plan: the plan (the cache key's
// input, and what a fragment sends) stays small, and the answer is the
// one the same expression gives when a run computes it from the rows
// (status * 0 keeps the planner from folding it at all). A small
// constant is still folded, so `_time > ago(1h)` still bounds the scan.
func TestLargeConstantsAreNotFolded(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, true)))
	run := func(q string) (*output.Output, int) {
		t.Helper()
		req := &exec.Request{APL: q, Now: fixtureNow, Workers: 2, NoColumnCache: true, DisableCache: true}
		_, pl, _, err := e.planReq(t.Context(), req, nil, time.Now())
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		enc, err := pl.Encode()
		if err != nil {
			t.Fatal(err)
		}
		out, err := e.Query(t.Context(), req)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return out, len(enc)
	}
	for _, c := range []struct{ big, rows string }{
		{`range(1, 20000)`, `range(1, 20000 + status * 0)`},
		{`range(datetime(2024-01-01), datetime(2024-01-08), 1m)`, `range(datetime(2024-01-01) + (_time - _time), datetime(2024-01-08), 1m)`},
		{`strrep(strrep("0123456789", 100), 100)`, `strrep(strrep("0123456789", 100), 100 + status * 0)`},
		{`split(strrep("a,", 1000), ",")`, `split(strrep("a,", 1000 + status * 0), ",")`},
	} {
		for _, shape := range []string{
			`logs | take 20 | extend v = %s | summarize n = sum(strlen(tostring(v))), h = dcount(hash(tostring(v))), x = max(substring(tostring(v), 5, 20))`,
			`logs | extend v = %s | take 3 | mv-expand v | summarize count(), dcount(tostring(v))`,
		} {
			got, size := run(fmt.Sprintf(shape, c.big))
			want, _ := run(fmt.Sprintf(shape, c.rows))
			if size > 16<<10 {
				t.Errorf("%s: plan of %d bytes, want the expression, not its value", c.big, size)
			}
			if g, w := answerRow(got), answerRow(want); g != w {
				t.Errorf("%s: answers %s, computed from the rows %s", c.big, g, w)
			}
		}
	}
	// in over a large constant list: one set a batch, the same rows.
	got, _ := run(`logs | where toint(status) in (range(300, 100000)) | count`)
	want, _ := run(`logs | where toint(status) >= 300 | count`)
	if g, w := answerRow(got), answerRow(want); g != w {
		t.Errorf("in (range(300, 100000)) counts %s, >= 300 counts %s", g, w)
	}
	// ago(1h) is small: folded, it bounds the scan.
	req := &exec.Request{APL: `logs | where _time > ago(1h) | extend r = range(1, 100000) | count`, Now: fixtureNow}
	_, pl, _, err := e.planReq(t.Context(), req, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	hourAgo := fixtureNow.Add(-time.Hour).UnixNano()
	if lo := pl.Source.Lo; lo == nil || *lo != hourAgo+1 {
		t.Errorf("where _time > ago(1h): the scan starts at %v, want just past %d", lo, hourAgo)
	}
}

// answerRow is the first row of an answer, as text.
func answerRow(o *output.Output) string {
	s := ""
	for _, c := range o.Table.Columns {
		s += fmt.Sprintf("%s=%v ", c.Name, c.Vec.Value(0))
	}
	return s
}
