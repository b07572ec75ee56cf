package parser

import "testing"

// bench10Ops is a typical dashboard query with ten operators.
const bench10Ops = `['sample-http-logs']
| where _time > ago(1h)
| where status == "500" and method in ("GET", "POST")
| extend d = req_duration_ms * 2
| project _time, method, d, ['geo.city']
| summarize c = count(), avg(d) by bin(_time, 5m), method
| where c > 10
| sort by c desc
| take 100
| project-rename n = c
| count`

func BenchmarkParse10Ops(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(bench10Ops)))
	for i := 0; i < b.N; i++ {
		if _, err := Parse(bench10Ops); err != nil {
			b.Fatal(err)
		}
	}
}
