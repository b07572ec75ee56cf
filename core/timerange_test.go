package core

import (
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
)

// A request's time range past either end of the datetime range (year
// 3000, 2263, 1677, now+1000y) is clamped to it: the whole dataset,
// not a count of 0 from a wrapped UnixNano.
func TestRequestRangeClamped(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 1, true)))
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		name       string
		start, end time.Time
	}{
		{"end 3000", time.Time{}, day(3000, 1, 1)},
		{"end 2263", day(2000, 1, 1), day(2263, 1, 1)},
		{"start 1677", day(1677, 1, 1), day(2100, 1, 1)},
		{"start 1000, end 9999", day(1000, 1, 1), day(9999, 1, 1)},
	}
	for _, c := range cases {
		res := mustQuery(t, e, "logs | count", func(r *exec.Request) { r.Start, r.End = c.start, c.end })
		if got := rows(res); len(got) != 1 || got[0][0] != int64(200) {
			t.Errorf("%s: %v, want the 200 events", c.name, got)
		}
	}
	res := mustQuery(t, e, "logs | count", func(r *exec.Request) { r.Start, r.End = day(2263, 1, 1), day(3000, 1, 1) })
	if got := rows(res); len(got) != 1 || got[0][0] != int64(0) {
		t.Errorf("a range wholly past 2262: %v, want 0", got)
	}
}

// A datetime literal a datetime cannot hold is refused at its position.
func TestDateTimeLiteralOutOfRange(t *testing.T) {
	opsExpectError(t, "datatable(a: long) [1] | extend x = datetime(3000-01-01)", 1, 37, "outside the range of datetime")
	opsExpectError(t, "datatable(a: long) [1] | where datetime(1600-06-01) < now()", 1, 32, "outside the range of datetime")
	opsExpect(t, "print x = datetime(2262-04-11T23:47:16.854775807Z)", "x:datetime", `["2262-04-11T23:47:16.854775807Z"]`)
}

// Times computed past 2262 or before 1677 are null, not wrapped into a
// time in another century.
func TestDateTimeOverflowIsNull(t *testing.T) {
	for _, expr := range []string{
		"datetime(2024-01-01) + 106000d",
		"datetime(1700-01-01) - 30000d",
		"datetime(2262-04-11) - datetime(1678-01-01)",
		"ago(-106000d)",
		"now(106000d)",
		"todatetime('3000-01-01')",
		"todatetime('1600-01-01T00:00:00Z')",
		"datetime_add('year', 1000, datetime(2024-01-01))",
		"datetime_add('day', 106000, datetime(2024-01-01))",
		"datetime_add('month', 9223372036854775807, datetime(2024-01-01))",
		"datetime_diff('nanosecond', datetime(2262-01-01), datetime(1678-01-01))",
		"bin(datetime(1678-01-01), 365d)",
		"endofyear(datetime(2262-04-01))",
		"startofyear(datetime(1677-12-01))",
		"startofyear(datetime(2024-01-01), 9223372036854775807)",
	} {
		res := opsQuery(t, "print x = "+expr)
		if got := res.Value(0, 0); got != nil {
			t.Errorf("%s = %v, want null", expr, got)
		}
	}
	// The same over a column, where the fast loops run.
	opsExpect(t, `datatable(t: datetime) [datetime(2262-04-01), datetime(2024-05-06), datetime(1678-01-01)]
		| project a = t + 100d, b = bin(t, 365d), c = endofyear(t)`,
		"a:datetime, b:datetime, c:datetime",
		`[null,"2261-10-22T00:00:00Z",null]`,
		`["2024-08-14T00:00:00Z","2023-12-19T00:00:00Z","2024-12-31T23:59:59.9999999Z"]`,
		`["1678-04-11T00:00:00Z",null,"1678-12-31T23:59:59.9999999Z"]`)
}

// A timespan product past int64 nanoseconds is null, integer or real.
func TestTimespanProductOverflowIsNull(t *testing.T) {
	opsExpect(t, "print a = 1d * 107000, b = 1d * 1.5e6, c = 1d * 2, d = 1d * 1.5",
		"a:timespan, b:timespan, c:timespan, d:timespan", `[null,null,"48h0m0s","36h0m0s"]`)
}

// range() near the ends of int64 (and so of datetime) stops at its end:
// the step past it wrapped around and the array grew without end.
func TestRangeAtTheEndsOfInt64(t *testing.T) {
	const q = `print a = array_length(range(9223372036854775800, 9223372036854775807, 5)),
		b = array_length(range(-9223372036854775800, -9223372036854775807, -5)),
		c = array_length(range(datetime(2262-04-01), datetime(2262-04-11T23:47:16Z), 5d)),
		d = range(-9223372036854775807, 9223372036854775807, 1),
		e = range(real(nan), 5.0, 1.0)`
	done := make(chan error, 1)
	go func() { done <- opsQueryErr("print x = 1", nil) }() // warm, so the bound below is the range's
	<-done
	go func() { done <- opsQueryErr(q, nil) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("range() near the end of int64 did not end")
	}
	opsExpect(t, q, "a:integer, b:integer, c:integer, d:dynamic, e:dynamic", `[2,2,3,null,null]`)
}
