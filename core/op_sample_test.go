package core

import (
	"fmt"
	"strings"
	"testing"
)

func TestSample(t *testing.T) {
	vals := make([]string, 2000)
	for i := range vals {
		vals[i] = fmt.Sprint(i)
	}
	data := "datatable(x:long)[" + strings.Join(vals, ",") + "]"
	res := opsQuery(t, data+" | sample 0.25 | summarize n = count(), d = dcount(x)")
	n := res.Value(0, 0).(int64)
	// 2000 rows at p=0.25: mean 500, sd ≈ 19; 6 sd either side.
	if n < 385 || n > 615 {
		t.Errorf("sample 0.25 of 2000 rows kept %d", n)
	}
	if d := res.Value(0, 1).(int64); d < n*9/10 {
		t.Errorf("sample repeated rows: %d rows, %d distinct", n, d)
	}
	res = opsQuery(t, data+" | sample 0.999999 | count")
	if n := res.Value(0, 0).(int64); n < 1990 {
		t.Errorf("sample 0.999999 kept %d of 2000", n)
	}
	res = opsQuery(t, data+" | where x < 0 | sample 0.5 | count")
	if n := res.Value(0, 0).(int64); n != 0 {
		t.Errorf("sample of nothing gave %d rows", n)
	}
	if got := opsColumns(opsQuery(t, "datatable(a:string, b:long)['x', 1] | sample 0.5")); got != "a:string, b:integer" {
		t.Errorf("sample changed the schema: %s", got)
	}
}

func TestSampleErrors(t *testing.T) {
	for _, c := range []struct {
		q    string
		col  int
		want string
	}{
		{"datatable(x:long)[1] | sample 10", 31, "between 0 and 1"},
		{"datatable(x:long)[1] | sample 1.0", 31, "between 0 and 1"},
		{"datatable(x:long)[1] | sample 0", 31, "between 0 and 1"},
		{"datatable(x:long)[1] | sample -0.5", 31, "between 0 and 1"},
		{"datatable(x:long)[1] | sample x", 31, "constant proportion"},
		{"datatable(x:long)[1] | sample 'a'", 31, "constant proportion"},
	} {
		opsExpectError(t, c.q, 1, c.col, c.want)
	}
}
