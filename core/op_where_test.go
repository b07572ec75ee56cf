package core

import (
	"fmt"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// The selection-kernel fast path of where (column op constant) agrees with
// the general expression path for every operator and column type,
// including columns with nulls (which fall back) and constants on the left.
func TestWhereFastPathAgrees(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(fixtureDB(t, 3, true)))
	cases := []struct{ col, k string }{
		{"resp_body_size_bytes", "2500"},
		{"req_duration_ms", "1.0"},
		{"req_duration_ms", "2"},
		{"_time", "datetime(2024-03-26T12:30:00Z)"},
	}
	for _, c := range cases {
		for _, op := range []string{"==", "!=", "<", "<=", ">", ">="} {
			fast := fmt.Sprintf("logs | where %s %s %s | count", c.col, op, c.k)
			flipped := fmt.Sprintf("logs | where %s %s %s | count", c.k, exec.FlipCmp(op), c.col)
			slow := fmt.Sprintf("logs | extend v = iff(true, %s, %s) | where v %s %s | count", c.col, c.col, op, c.k)
			want := rows(mustQuery(t, e, slow))[0][0]
			for _, q := range []string{fast, flipped} {
				if got := rows(mustQuery(t, e, q))[0][0]; got != want {
					t.Errorf("%s = %v, general path says %v", q, got, want)
				}
			}
		}
	}
	// A column with nulls must not match its null rows.
	d := NewEngine(nil)
	r := rows(mustQuery(t, d, "datatable(x:long) [1, long(null), 0] | where x == 0 | count"))
	if r[0][0] != int64(1) {
		t.Errorf("null row matched x == 0: %v", r)
	}
}
