package core

import (
	"fmt"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// TestFusedCondEqualsExpression: conditional aggregations whose predicate
// runs as a filter kernel answer what the same predicate evaluated as an
// expression does (`and true` keeps it off the kernel), with nulls, NaN,
// every comparison, bool columns, a selection left by a where, and the
// bounds of the value range.
func TestFusedCondEqualsExpression(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(topDB(t, 11, 5, 900)))
	preds := []string{
		"i >= 2", "i > 2", "i < -1", "i <= 0", "i == 3", "i != 3",
		"i < -9223372036854775807 - 1", "i > 9223372036854775807", "i >= -9223372036854775807 - 1",
		"f > 2.5", "f >= 2.5", "f < 0", "f <= -1.25", "f == 2", "f != 2", "f > 2",
		"g > 1", "g != 1", "g < 1", "g == 1",
		"_time >= datetime(2024-03-01T00:02:00Z)",
		"b", "not(b)", "b == true", "b == false", "b != true", "false != b",
		"2 < i", "1.5 >= f", "h > 0.5", "h != 1", "h <= -1", "h == 1.5",
		"nb", "not(nb)", "nb == false", "nb != false",
	}
	const src = `t | extend g = iff(f > 3, todouble("nan"), f), h = todouble(i) / 2, nb = i > 0`
	for _, where := range []string{"", "| where id % 3 != 1 "} {
		for _, p := range preds {
			for _, aggs := range []string{
				"countif(%[1]s)",
				"sumif(i, %[1]s), avgif(f, %[1]s), maxif(id, %[1]s), countif(%[1]s)",
			} {
				fused := fmt.Sprintf(aggs, p)
				plain := fmt.Sprintf(aggs, "("+p+") and true")
				for _, by := range []string{"", " by s | order by s asc"} {
					q := src + where + "| summarize " + fused + by
					want := src + where + "| summarize " + plain + by
					for _, w := range []int{1, 3} {
						mod := func(r *exec.Request) { r.Workers = w }
						got, exp := fmt.Sprint(rows(mustQuery(t, e, q, mod))), fmt.Sprint(rows(mustQuery(t, e, want, mod)))
						if got != exp {
							t.Fatalf("%s\n got %s\nwant %s (%s)", q, got, exp, want)
						}
					}
				}
			}
		}
	}
}
