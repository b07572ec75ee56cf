package core

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
)

// mixedNumberEngine holds "m": n events whose field d is a float written
// as an integer when whole (every 7th row), missing every 11th row, and
// whose field s is a number for the first half and a string after.
func mixedNumberEngine(t *testing.T, n int) (*Engine, []float64) {
	t.Helper()
	db := store.OpenMemory(store.Options{SealRows: 1000})
	ds, err := db.Create("m")
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for start := 0; start < n; start += 700 {
		rb := store.NewRowsBuilder()
		for i := start; i < min(start+700, n); i++ {
			rb.Begin()
			rb.SetTime(t0 + int64(i)*int64(time.Second))
			switch {
			case i%11 == 0:
			case i%7 == 0:
				rb.SetInt("d", int64(i%50))
				want = append(want, float64(i%50))
			default:
				rb.SetFloat("d", float64(i%50)+0.25)
				want = append(want, float64(i%50)+0.25)
			}
			if i < n/2 {
				rb.SetInt("s", int64(i))
			} else {
				rb.SetString("s", fmt.Sprint("v", i))
			}
			rb.End(t0)
		}
		if _, err := ds.Append(rb.Finish(t0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	return NewEngine(exec.StoreCatalog(db)), want
}

// TestMixedIntFloatFieldAnswers checks aggregations, filters and sorts of
// a field holding integers and floats against values computed here, with
// the column cache on (merged vector cached) and off.
func TestMixedIntFloatFieldAnswers(t *testing.T) {
	const n = 5000
	e, vals := mixedNumberEngine(t, n)
	var sum, mx float64
	gt, mn := 0, math.Inf(1)
	for _, v := range vals {
		sum += v
		mx, mn = max(mx, v), min(mn, v)
		if v > 40 {
			gt++
		}
	}
	cases := []struct{ q, want string }{
		{`m | summarize c = countif(isnotnull(d)), s = sum(d), lo = min(d), hi = max(d)`,
			fmt.Sprintf("[%d,%v,%v,%v]", len(vals), sum, mn, mx)},
		{`m | where d > 40 | count`, fmt.Sprintf("[%d]", gt)},
		{`m | where d == 14 | count`, fmt.Sprintf("[%d]", countEq(vals, 14))},
		{`m | where isnotnull(d) | top 1 by d asc | project d`, fmt.Sprintf("[%v]", mn)},
		{`m | where isnotnull(d) | extend t = gettype(d) | summarize dcount(t)`, `[1]`},
		{`m | where s > 100 | count`, fmt.Sprintf("[%d]", n/2-101)},
		// top reads s (int in early parts, string in late ones) for the
		// winners only.
		{`m | top 1 by _time asc | project s, d`, `[0,null]`},
		{`m | top 1 by _time desc | project s`, fmt.Sprintf(`["v%d"]`, n-1)},
		{`m | sort by _time desc | take 1 | project s`, fmt.Sprintf(`["v%d"]`, n-1)},
	}
	for _, nocache := range []bool{false, true} {
		for _, c := range cases {
			for run := 0; run < 2; run++ { // the second run hits the cached merge
				res, err := e.Query(context.Background(), &exec.Request{APL: c.q, Workers: 2, DisableCache: nocache})
				if err != nil {
					t.Fatalf("%s: %v", c.q, err)
				}
				if got := opsRows(t, res); len(got) != 1 || got[0] != c.want {
					t.Errorf("%s (nocache=%v, run %d):\n got %v\nwant %s", c.q, nocache, run, got, c.want)
				}
			}
		}
	}
}

func countEq(vs []float64, x float64) int {
	c := 0
	for _, v := range vs {
		if v == x {
			c++
		}
	}
	return c
}
