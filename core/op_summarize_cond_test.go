package core

import (
	"fmt"
	"math"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestFusedCondEqualsExpression: conditional aggregations whose predicate
// runs as a filter kernel answer what the same predicate evaluated as an
// expression does (`and true` keeps it off the kernel), with nulls, NaN,
// every comparison, bool columns, a selection left by a where, and the
// bounds of the value range.
func TestFusedCondEqualsExpression(t *testing.T) {
	e := NewEngine(StoreCatalog(topDB(t, 11, 5, 900)))
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
						mod := func(r *Request) { r.Workers = w }
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

// BenchmarkCondSelect times the fused predicate kernel over 64Ki rows in
// 8 groups: a long compared with a constant and a bool column.
func BenchmarkCondSelect(b *testing.B) {
	const n = 1 << 16
	ints := make([]int64, n)
	bools := make([]bool, n)
	groups := make([]uint32, n)
	for i := range n {
		ints[i] = int64(i*7919) % 600
		bools[i] = (i*31)%7 < 3
		groups[i] = uint32(i*13) % 8
	}
	for _, c := range []struct {
		name string
		f    *condFilter
		v    *vector.Vector
	}{
		{"long", &condFilter{kind: vector.Int, lo: 500, hi: math.MaxInt64}, &vector.Vector{Type: vector.Int, Len: n, Ints: ints}},
		{"bool", &condFilter{kind: vector.Bool, want: false}, &vector.Vector{Type: vector.Bool, Len: n, Bools: bools}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var os []int32
			var og []uint32
			b.SetBytes(n * 8)
			b.ReportAllocs()
			for b.Loop() {
				os, og, _ = c.f.selectTrue(c.v, nil, groups, os[:0], og[:0])
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
