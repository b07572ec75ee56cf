package core

import (
	"context"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/vector"
)

// BenchmarkExprSelective evaluates a*2 + b, a > b and strlen(tostring(a))
// over one 8192-row batch with every row live, half of them and 1.5% of
// them (where status == 500 keeps that many). rows/s counts the batch's
// rows, live or not.
func BenchmarkExprSelective(b *testing.B) {
	a, c := vector.New(vector.Int, vector.BatchSize), vector.New(vector.Int, vector.BatchSize)
	for i := 0; i < vector.BatchSize; i++ {
		a.AppendInt(int64(i * 7 % 1000))
		c.AppendInt(int64(i % 13))
	}
	sch := exec.Schema{{Name: "a", Type: vector.Int}, {Name: "b", Type: vector.Int}}
	x := &exec.Ctx{Ctx: context.Background(), Budget: exec.NewMemBudget(0), Fn: testFnContext()}
	for _, src := range []string{"a * 2 + b", "a > b", "strlen(tostring(a))"} {
		e := compileSelTest(b, sch, src)
		for _, d := range []struct {
			name  string
			every int
		}{{"all", 0}, {"half", 2}, {"1.5%", 66}} {
			var sel []int32
			for i := 0; d.every > 0 && i < vector.BatchSize; i += d.every {
				sel = append(sel, int32(i))
			}
			b.Run(src+"/"+d.name, func(b *testing.B) {
				bt := exec.NewBatch([]*vector.Vector{a, c}, vector.BatchSize)
				bt.Sel = sel
				b.SetBytes(vector.BatchSize * 16)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := e.Run(x, bt); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(vector.BatchSize)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
