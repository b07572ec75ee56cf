package core

import (
	"fmt"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// TestFusedCountEqualsExpression: count() and countif by a dictionary key,
// counted by code and predicate bits, answer what the general aggregation
// does (`and true` keeps a predicate off the kernels), with nulls in the
// predicate columns, a != over nulls, a mixed long/real column, a
// selection left by a where, more predicates than the kernel takes, and
// one or several workers.
func TestFusedCountEqualsExpression(t *testing.T) {
	e := NewEngine(exec.StoreCatalog(topDB(t, 13, 5, 3000)))
	aggs := []string{
		"countif(%[1]s)",
		"count(), countif(%[1]s)",
		"countif(%[1]s), countif(b), c = count(), countif(i >= 2)",
		"countif(%[1]s), countif(b), countif(i < 0), countif(f > 1), countif(not(b))",
	}
	preds := []string{"i >= 2", "i != 3", "f > 1.5", "f != 2", "b", "b == false", "b != true", "x > 3", "x < 100", "i < -9223372036854775807 - 1"}
	for _, where := range []string{"", "| where id % 3 != 1 "} {
		for _, a := range aggs {
			for _, p := range preds {
				fused := fmt.Sprintf(a, p)
				plain := fmt.Sprintf(a, "("+p+") and true")
				for _, w := range []int{1, 3} {
					mod := func(r *exec.Request) { r.Workers = w }
					q := "t " + where + "| summarize " + fused + " by s"
					want := "t " + where + "| summarize " + plain + " by s"
					// Groups of a summarize come in no promised order: compare them
					// sorted, whatever the workers.
					got, exp := rowStrings(rows(mustQuery(t, e, q, mod)), true), rowStrings(rows(mustQuery(t, e, want, mod)), true)
					if got != exp {
						t.Fatalf("%s (%d workers)\n got %s\nwant %s (%s)", q, w, got, exp, want)
					}
				}
			}
		}
	}
}
