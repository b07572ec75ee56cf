package agg

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/aplite/aplite/vector"
)

// The benchmarks aggregate 1M rows in 8192-row batches (vector.BatchSize)
// into ~10 and ~10k groups, the two shapes of summarize ... by service
// and by a high-cardinality key. Each iteration builds a fresh state,
// feeds every batch and builds the result; rows/s is reported per core.

const benchRows = 1 << 20

type benchBatch struct {
	args   []*vector.Vector
	groups []uint32
}

func benchBatches(ngroups int, arg func(r *rand.Rand, n int) *vector.Vector) []benchBatch {
	r := rand.New(rand.NewSource(1))
	var out []benchBatch
	for done := 0; done < benchRows; done += vector.BatchSize {
		n := min(vector.BatchSize, benchRows-done)
		b := benchBatch{groups: make([]uint32, n)}
		for i := range b.groups {
			b.groups[i] = uint32(r.Intn(ngroups))
		}
		if arg != nil {
			b.args = []*vector.Vector{arg(r, n)}
		}
		out = append(out, b)
	}
	return out
}

func floatsArg(r *rand.Rand, n int) *vector.Vector {
	v := &vector.Vector{Type: vector.Float, Len: n, Floats: make([]float64, n)}
	for i := range v.Floats {
		v.Floats[i] = r.ExpFloat64() * 100
	}
	return v
}

func stringsArg(r *rand.Rand, n int) *vector.Vector {
	v := &vector.Vector{Type: vector.String, Len: n, Strs: make([]string, n)}
	for i := range v.Strs {
		v.Strs[i] = fmt.Sprintf("user-%d", r.Intn(50000))
	}
	return v
}

func benchAgg(b *testing.B, name string, consts []*vector.Vector, arg func(*rand.Rand, int) *vector.Vector) {
	for _, ng := range []int{1, 10, 10000} {
		b.Run(fmt.Sprintf("groups=%d", ng), func(b *testing.B) {
			batches := benchBatches(ng, arg)
			for i := range batches {
				for _, c := range consts {
					cc := *c
					cc.Len = len(batches[i].groups)
					batches[i].args = append(batches[i].args, &cc)
				}
			}
			b.ReportAllocs()
			if arg != nil {
				b.SetBytes(8 * benchRows)
			}
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				st := newState(b, name, batches[0].args)
				st.Grow(ng)
				for _, bt := range batches {
					st.Update(bt.args, nil, bt.groups)
				}
				st.Result(ng)
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func BenchmarkCount(b *testing.B) { benchAgg(b, "count", nil, nil) }

func BenchmarkSumFloat(b *testing.B) { benchAgg(b, "sum", nil, floatsArg) }

func BenchmarkAvg(b *testing.B) { benchAgg(b, "avg", nil, floatsArg) }

func BenchmarkPercentile(b *testing.B) {
	benchAgg(b, "percentile", []*vector.Vector{cnst(vector.Int, int64(95), 1)}, floatsArg)
}

func BenchmarkDcount(b *testing.B) { benchAgg(b, "dcount", nil, stringsArg) }

func BenchmarkMaxFloat(b *testing.B) { benchAgg(b, "max", nil, floatsArg) }

func BenchmarkStdev(b *testing.B) { benchAgg(b, "stdev", nil, floatsArg) }
