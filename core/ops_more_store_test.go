package core

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
)

// opsStoreEngine returns an engine over a memory store holding "events":
// n rows in several parts, so scans run in parallel workers and operators
// see lazily decoded, filtered batches.
func opsStoreEngine(t *testing.T, n int) *Engine {
	t.Helper()
	db := store.OpenMemory(store.Options{SealRows: 1000})
	ds, err := db.Create("events")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for start := 0; start < n; start += 700 {
		rb := store.NewRowsBuilder()
		for i := start; i < min(start+700, n); i++ {
			rb.Begin()
			rb.SetTime(t0 + int64(i)*int64(time.Second))
			rb.SetInt("k", int64(i%10))
			rb.SetString("msg", fmt.Sprintf("user=u%d ms=%d", i%3, i))
			rb.SetDynamic("tags", []any{int64(i), "x"})
			rb.End(t0)
		}
		if _, err := ds.Append(rb.Finish(t0)); err != nil {
			t.Fatal(err)
		}
	}
	return NewEngine(exec.StoreCatalog(db))
}

// TestOperatorsOverScans runs each operator over a multi-part dataset and
// checks aggregates that any lost, repeated or misaligned row would change.
func TestOperatorsOverScans(t *testing.T) {
	const n = 5000
	e := opsStoreEngine(t, n)
	cases := []struct{ q, want string }{
		{`events | where k < 5 | lookup (datatable(k:long, name:string)[1,'one', 3,'three']) on k | summarize c = countif(isnotnull(name)), s = sum(k)`, `[1000,5000]`},
		{`events | where k != 0 | join kind=inner (datatable(k:long, w:long)[2,10, 2,20, 7,1]) on k | summarize c = count(), s = sum(w)`, `[1500,15500]`},
		{`events | join kind=leftanti (events | where k < 8) on k | summarize c = count(), d = dcount(k)`, `[1000,2]`},
		{`events | join kind=rightsemi (datatable(k:long)[3, 42]) on k | count`, `[1]`},
		{`events | where k == 4 | mv-expand tags | summarize c = count(), s = sum(tolong(tags))`, `[1000,` + fmt.Sprint(sumK4(n)) + `]`},
		{`events | parse msg with 'user=' user ' ms=' ms:long | where ms == (_time - datetime(2024-01-01)) / 1s | summarize c = count(), u = dcount(user)`, `[5000,3]`},
		{`events | parse-kv msg as (ms:long) with (pair_delimiter=' ', kv_delimiter='=') | summarize s = sum(ms)`, fmt.Sprintf("[%d]", n*(n-1)/2)},
		{`events | make-series c = count() on _time from datetime(2024-01-01) step 1000s | project s = array_sum(c)`, `[5000]`},
	}
	for _, c := range cases {
		res, err := e.Query(context.Background(), &exec.Request{APL: c.q, Workers: 3})
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got := opsRows(t, res); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.q, got, c.want)
		}
	}
}

func sumK4(n int) int {
	s := 0
	for i := 4; i < n; i += 10 {
		s += i
	}
	return s
}

// TestJoinRightDatasetPermission checks that the right side of a join is
// subject to the caller's dataset permissions.
func TestJoinRightDatasetPermission(t *testing.T) {
	e := opsStoreEngine(t, 10)
	_, err := e.Query(context.Background(), &exec.Request{
		APL:     `datatable(k:long)[1] | join kind=inner events on k`,
		Allowed: func(string) bool { return false },
	})
	var fe *exec.ForbiddenError
	if !errors.As(err, &fe) {
		t.Fatalf("want ForbiddenError, got %v", err)
	}
}
