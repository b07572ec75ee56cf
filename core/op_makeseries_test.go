package core

import "testing"

const seriesData = `let T = datatable(t:datetime, svc:string, ms:long)[
 datetime(2024-01-01 00:00), 'a', 10,
 datetime(2024-01-01 00:01:30), 'a', 20,
 datetime(2024-01-01 00:03), 'b', 5,
 datetime(2024-01-01 00:03:59), 'a', 7,
 datetime(2024-01-01 00:09), 'a', 1000];
`

func TestMakeSeries(t *testing.T) {
	axis5 := `["2024-01-01T00:00:00Z","2024-01-01T00:01:00Z","2024-01-01T00:02:00Z","2024-01-01T00:03:00Z","2024-01-01T00:04:00Z"]`
	cases := []struct {
		name, q, cols string
		rows          []string
	}{
		{"from to step by", seriesData + `T | make-series n=count(), avg(ms) default=-1 on t from datetime(2024-01-01 00:00) to datetime(2024-01-01 00:05) step 1m by svc`,
			"svc:string, n:dynamic, avg_ms:dynamic, t:dynamic",
			[]string{`["a",[1,1,0,1,0],[10,20,-1,7,-1],` + axis5 + `]`, `["b",[0,0,0,1,0],[-1,-1,-1,5,-1],` + axis5 + `]`}},
		{"in range", seriesData + `T | make-series n=count() on t in range(datetime(2024-01-01 00:00), datetime(2024-01-01 00:05), 1m) by svc | project n`,
			"n:dynamic", []string{`[[1,1,0,1,0]]`, `[[0,0,0,1,0]]`}},
		{"range from the data, default 0", seriesData + `T | make-series sum(ms) on t step 3m`,
			"sum_ms:dynamic, t:dynamic",
			[]string{`[[30,12,0,1000],["2024-01-01T00:00:00Z","2024-01-01T00:03:00Z","2024-01-01T00:06:00Z","2024-01-01T00:09:00Z"]]`}},
		{"from only", seriesData + `T | make-series max(ms) on t from datetime(2024-01-01 00:03) step 5m`,
			"max_ms:dynamic, t:dynamic", []string{`[[7,1000],["2024-01-01T00:03:00Z","2024-01-01T00:08:00Z"]]`}},
		{"to only", seriesData + `T | make-series c=count() on t to datetime(2024-01-01 00:02) step 1m`,
			"c:dynamic, t:dynamic", []string{`[[1,1],["2024-01-01T00:00:00Z","2024-01-01T00:01:00Z"]]`}},
		{"numeric axis", `datatable(x:long, y:real)[0, 1.5, 3, 2.5, 4, 1.0, 11, 9] | make-series s=sum(y) on x from 0 to 10 step 2`,
			"s:dynamic, x:dynamic", []string{`[[1.5,2.5,1,0,0],[0,2,4,6,8]]`}},
		{"real axis", `datatable(x:real)[0.5, 0.7, 1.2] | make-series c=count() on x from 0 to 1.5 step 0.5`,
			"c:dynamic, x:dynamic", []string{`[[0,2,1],[0,0.5,1]]`}},
		{"timespan axis", `datatable(d:timespan)[1s, 2s, 2500ms] | make-series c=count() on d from 0s to 3s step 1s`,
			"c:dynamic, d:dynamic", []string{`[[0,1,2],["0s","1s","2s"]]`}},
		{"empty input", seriesData + `T | where ms < 0 | make-series count() on t step 1m | count`,
			"count:integer", []string{`[0]`}},
		{"expand back to rows", seriesData + `T | where svc == 'b' | make-series n=count() on t from datetime(2024-01-01 00:02) to datetime(2024-01-01 00:04) step 1m | mv-expand n to typeof(long), t to typeof(datetime)`,
			"n:integer, t:datetime", []string{`[0,"2024-01-01T00:02:00Z"]`, `[1,"2024-01-01T00:03:00Z"]`}},
		{"null axis and null key", `datatable(t:long, k:string)[1, 'x', long(null), 'x', 2, ''] | extend k = iff(k == '', k, k) | make-series c=count() on t from 0 to 3 step 1 by k`,
			"k:string, c:dynamic, t:dynamic", []string{`["x",[0,1,0],[0,1,2]]`, `["",[0,0,1],[0,1,2]]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { opsExpect(t, c.q, c.cols, c.rows...) })
	}
}

func TestMakeSeriesErrors(t *testing.T) {
	q := seriesData + "T | make-series "
	opsExpectError(t, q+"count() on svc step 1m", 7, 28, "axis must be a datetime")
	opsExpectError(t, q+"count() on t step ms", 7, 35, "step must be a constant")
	opsExpectError(t, q+"count() on t step 5", 7, 35, "must be a timespan")
	opsExpectError(t, q+"count() on t step 0s", 7, 35, "step must be positive")
	opsExpectError(t, q+"count() on t from 5 step 1m", 7, 35, "from must be a datetime")
	opsExpectError(t, q+"count() default=ms on t step 1m", 7, 33, "default must be a constant")
	opsExpectError(t, q+"arg_max(ms, svc) on t step 1m", 7, 17, "one result")
	opsExpectError(t, q+"nope(ms) on t step 1m", 7, 17, "unknown aggregation")
	if err := opsQueryErr(q+"count() on t from datetime(2000-01-01) to datetime(2025-01-01) step 1s", nil); err == nil {
		t.Error("a series of billions of bins should fail")
	}
	if err := opsQueryErr(q+"count() on t step 100micros", nil); err == nil {
		t.Error("a data-derived range of 5,400,000 bins should fail past the limit")
	}
}
