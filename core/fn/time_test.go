package fn

import (
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func d(s string) time.Time {
	ns, ok := ParseTime(s)
	if !ok {
		panic("bad test time " + s)
	}
	return utc(ns)
}

func TestDatetimeFunctions(t *testing.T) {
	xRunCases(t, []xCase{
		// Examples from Axiom's pages.
		{"datetime_add", []any{"month", 1, d("2016-10-06")}, d("2016-11-06")},
		{"datetime_part", []any{"Day", d("2016-06-26T08:20:03.123456Z")}, int64(26)},
		// Weeks count Sunday week boundaries, like 'day' counts midnights
		// (Kusto's example: Sat Sep 30 23:59 to Sun Oct 29 is 5, where
		// 7-day periods gave 4). Axiom's page has no week example.
		{"datetime_diff", []any{"week", d("2017-10-29T00:00:00Z"), d("2017-09-30T23:59:00Z")}, int64(5)},
		{"datetime_diff", []any{"week", d("2017-10-01T00:00:00Z"), d("2017-09-30T23:59:00Z")}, int64(1)},
		{"datetime_diff", []any{"week", d("2017-09-30T23:59:00Z"), d("2017-09-24T00:00:00Z")}, int64(0)},
		{"datetime_diff", []any{"week", d("2017-09-24T00:00:00Z"), d("2017-10-01T00:00:00Z")}, int64(-1)},
		{"datetime_diff", []any{"week", d("1969-12-27T00:00:00Z"), d("1969-12-28T00:00:00Z")}, int64(-1)},
		{"datetime_diff", []any{"week", d("2019-06-26T08:20:03.123456Z"), d("2014-06-26T08:19:03.123456Z")}, int64(261)},
		{"datetime_diff", []any{"week", d("2015-11-08"), d("2014-11-08")}, int64(53)},
		{"dayofmonth", []any{d("2017-11-30")}, int64(30)},
		{"dayofweek", []any{d("2019-05-18")}, int64(6)},
		{"dayofyear", []any{d("2020-07-20")}, int64(202)},
		{"endofyear", []any{d("2016-06-26T08:20")}, d("2016-12-31T23:59:59.9999999Z")},
		{"getmonth", []any{d("2020-07-26T08:20")}, int64(7)},
		{"getyear", []any{d("2020-07-26")}, int64(2020)},
		{"hourofday", []any{d("2016-06-26T08:20:03.123456Z")}, int64(8)},
		{"endofday", []any{d("2016-06-26T08:20:03.123456Z")}, d("2016-06-26T23:59:59.9999999Z")},
		{"endofmonth", []any{d("2016-06-26T08:20")}, d("2016-06-30T23:59:59.9999999Z")},
		{"endofweek", []any{d("2019-04-18T08:20")}, d("2019-04-20T23:59:59.9999999Z")},
		{"monthofyear", []any{d("2018-11-11")}, int64(11)},
		{"startofday", []any{d("2018-11-11T13:14:15Z")}, d("2018-11-11")},
		{"startofmonth", []any{d("2020-08-01")}, d("2020-08-01")},
		{"startofweek", []any{d("2020-08-01")}, d("2020-07-26")},
		{"startofyear", []any{d("2019-10-09 01:00:00.0000000")}, d("2019-01-01")},
		{"now", []any{}, xNow},
		{"now", []any{-5 * 24 * time.Hour}, xNow.Add(-5 * 24 * time.Hour)},
		{"ago", []any{6 * time.Hour}, xNow.Add(-6 * time.Hour)},
		{"unixtime_seconds_todatetime", []any{int64(1546300800)}, d("2019-01-01")},
		{"unixtime_seconds_todatetime", []any{1546300800.5}, d("2019-01-01T00:00:00.5Z")},
		{"unixtime_milliseconds_todatetime", []any{int64(1546300800123)}, d("2019-01-01T00:00:00.123Z")},
		{"unixtime_microseconds_todatetime", []any{int64(1546300800000001)}, d("2019-01-01T00:00:00.000001Z")},
		{"unixtime_nanoseconds_todatetime", []any{int64(1546300800000000001)}, d("2019-01-01T00:00:00.000000001Z")},
		{"week_of_year", []any{d("2023-01-01")}, int64(52)},
		{"week_of_year", []any{d("2024-01-01")}, int64(1)},
		{"format_datetime", []any{d("2017-01-29T09:00:05.12Z"), "yy-MM-dd [HH:mm:ss]"}, "17-01-29 [09:00:05]"},
		{"format_datetime", []any{d("2017-01-29T21:00:05.12Z"), "yyyy-M-d h:m:s.fff tt"}, "2017-1-29 9:0:5.120 PM"},
		{"format_datetime", []any{d("2017-01-29T21:00:05.12Z"), `HH\h FFFF`}, "21h 12"},

		// Edge cases: calendar clamping, pre-1970 times, strings, nulls.
		{"datetime_add", []any{"month", 1, d("2024-01-31")}, d("2024-02-29")},
		{"datetime_add", []any{"year", -1, d("2024-02-29")}, d("2023-02-28")},
		{"datetime_add", []any{"hour", 36, d("2024-01-01")}, d("2024-01-02T12:00:00Z")},
		{"datetime_diff", []any{"year", d("2017-01-01"), d("2016-12-31")}, int64(1)},
		{"datetime_diff", []any{"month", d("2017-01-01"), d("2017-03-31")}, int64(-2)},
		{"datetime_diff", []any{"day", d("2017-01-03T12:00:00Z"), d("2017-01-01")}, int64(2)},
		{"datetime_diff", []any{"minute", d("2017-01-01T00:10:59Z"), d("2017-01-01")}, int64(10)},
		{"dayofweek", []any{d("1969-12-28")}, int64(0)},
		{"hourofday", []any{d("1969-12-31T23:30:00Z")}, int64(23)},
		{"startofday", []any{d("1969-12-31T23:30:00Z")}, d("1969-12-31")},
		{"startofmonth", []any{d("2024-03-15"), -1}, d("2024-02-01")},
		{"endofmonth", []any{d("2024-01-15"), 1}, d("2024-02-29T23:59:59.9999999Z")},
		{"getyear", []any{"2021-05-06T07:08:09Z"}, int64(2021)},
		{"getyear", []any{"garbage"}, nil},
		{"dayofmonth", []any{xTyped{vector.DateTime, nil}}, nil},
		{"datetime_part", []any{"quarter", d("2024-08-01")}, int64(3)},
		{"datetime_part", []any{"millisecond", d("2024-08-01T00:00:00.123456Z")}, int64(123)},
		{"datetime_part", []any{"week_of_year", d("2024-08-01")}, int64(31)},
	})
	xRunTypeErrs(t, []xTypeErr{
		{"dayofweek", []vector.Type{vector.Int}, "argument 1 of dayofweek must be string or datetime, got long"},
		{"ago", []vector.Type{vector.String}, "argument 1 of ago must be timespan, got string"},
		{"datetime_add", []vector.Type{vector.String, vector.String, vector.DateTime}, "argument 2 of datetime_add must be long, got string"},
	})
}

func TestUnknownConstPartIsAnError(t *testing.T) {
	args := []*vector.Vector{xConst(vector.String, "fortnight", 1), xConst(vector.DateTime, xNow, 1)}
	if _, err := Lookup("datetime_part").Eval(&Context{}, args, Dense(1)); err == nil {
		t.Fatal("datetime_part with an unknown literal part should fail")
	}
}

func TestRoundingFunctions(t *testing.T) {
	xRunCases(t, []xCase{
		{"bin", []any{4.5, 1}, 4.0},
		{"bin", []any{int64(47), 10}, int64(40)},
		{"bin", []any{int64(-3), 10}, int64(-10)},
		{"bin", []any{-4.5, 1.0}, -5.0},
		{"bin", []any{d("1970-05-11T13:45:07Z"), 24 * time.Hour}, d("1970-05-11")},
		{"bin", []any{d("1969-12-31T23:59:00Z"), time.Hour}, d("1969-12-31T23:00:00Z")},
		{"bin", []any{90 * time.Minute, time.Hour}, time.Hour},
		{"bin", []any{int64(5), 0}, nil},
		{"bin", []any{4.5, -1.0}, nil},
		{"bin", []any{xTyped{vector.Int, nil}, 10}, nil},
		{"floor", []any{2.7}, 2.0},
		{"floor", []any{-2.5}, -3.0},
		{"floor", []any{int64(7)}, int64(7)},
		{"floor", []any{int64(47), 10}, int64(40)},
		{"ceiling", []any{2.1}, 3.0},
		{"ceiling", []any{-2.5}, -2.0},
		{"bin_auto", []any{d("2024-03-15T10:07:31Z")}, d("2024-03-15T10:07:00Z")}, // the tests' range is 1h: 1m bins
	})
	xRunTypeErrs(t, []xTypeErr{
		{"bin", []vector.Type{vector.DateTime, vector.Int}, "argument 2 of bin must be timespan, got long"},
		{"bin", []vector.Type{vector.String, vector.Int}, "argument 1 of bin must be long, real, datetime or timespan, got string"},
		{"bin", []vector.Type{vector.Int, vector.TimeSpan}, "argument 2 of bin must be long or real for a long value, got timespan"},
		{"ceiling", []vector.Type{vector.String}, "argument 1 of ceiling must be long or real, got string"},
	})
}

func TestBinAutoUsesQueryRange(t *testing.T) {
	cases := []struct {
		span time.Duration
		want time.Duration
	}{
		{time.Hour, time.Minute}, {24 * time.Hour, 15 * time.Minute}, {7 * 24 * time.Hour, 3 * time.Hour},
		{90 * 24 * time.Hour, 24 * time.Hour}, {10 * time.Second, time.Second},
	}
	for _, c := range cases {
		if got := AutoBinSize(xNow.Add(-c.span), xNow); got != c.want {
			t.Errorf("range %v: bin %v, want %v", c.span, got, c.want)
		}
	}
	if got := AutoBinSize(time.Time{}, time.Time{}); got != time.Hour {
		t.Errorf("unbounded range: %v", got)
	}
	ctx := &Context{Start: xNow.Add(-24 * time.Hour), End: xNow}
	col := xCol(vector.DateTime, d("2024-03-15T10:07:31Z"), nil)
	out, err := Lookup("bin_auto").Eval(ctx, []*vector.Vector{col}, Dense(2))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Value(0); got != d("2024-03-15T10:00:00Z") || out.Value(1) != nil {
		t.Fatalf("got %v, %v", got, out.Value(1))
	}
}

func BenchmarkBinInts(b *testing.B) {
	vals := make([]any, vector.BatchSize)
	for i := range vals {
		vals[i] = int64(i*7919 - 40000)
	}
	args := []*vector.Vector{xCol(vector.Int, vals...), xConst(vector.Int, int64(100), vector.BatchSize)}
	f := Lookup("bin")
	b.ReportAllocs()
	b.SetBytes(vector.BatchSize * 8)
	for b.Loop() {
		if _, err := f.Eval(&Context{}, args, Dense(vector.BatchSize)); err != nil {
			b.Fatal(err)
		}
	}
}
