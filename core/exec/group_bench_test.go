package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/vector"
)

// BenchmarkAssignIntsDense groups 64Ki rows by an HTTP status code: the
// dense-array path of summarize count() by status.
func BenchmarkAssignIntsDense(b *testing.B) {
	codes := []int64{200, 200, 200, 200, 201, 204, 301, 304, 400, 401, 403, 404, 500, 502, 503}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1 << 16
	v := vector.New(vector.Int, n)
	for range n {
		v.AppendInt(codes[r.IntN(len(codes))])
	}
	g := newGroupTable([]vector.Type{vector.Int})
	out := make([]uint32, n)
	g.assign([]*vector.Vector{v}, nil, n, out)
	b.SetBytes(n * 8)
	b.ReportAllocs()
	for b.Loop() {
		g.assign([]*vector.Vector{v}, nil, n, out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
}

// BenchmarkAssignStringsNewGroups groups 64Ki rows by a string key with a
// new group every fourth row into a fresh table: the cost of creating
// groups, which copy their string keys.
func BenchmarkAssignStringsNewGroups(b *testing.B) {
	const n = 1 << 16
	v := vector.New(vector.String, n)
	bytes := 0
	for i := range n {
		s := fmt.Sprintf("/api/v2/users/%d", i/4)
		bytes += len(s)
		v.AppendStr(s)
	}
	out := make([]uint32, n)
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for b.Loop() {
		g := newGroupTable([]vector.Type{vector.String})
		g.assign([]*vector.Vector{v}, nil, n, out)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCountByStatus times `summarize count() by status` over one
// 64Ki-row batch of BenchmarkAssignIntsDense's codes: "ids" assigns group
// ids and counts them (the general path), "lanes" counts by value in
// lanes (group_count.go).
func BenchmarkCountByStatus(b *testing.B) {
	codes := []int64{200, 200, 200, 200, 201, 204, 301, 304, 400, 401, 403, 404, 500, 502, 503}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1 << 16
	v := vector.New(vector.Int, n)
	for range n {
		v.AppendInt(codes[r.IntN(len(codes))])
	}
	st := &summarizeStage{Keys: []*Expr{{Typ: vector.Int, Col: 0}}, Aggs: []*aggCall{{Spec: agg.Lookup("count"), Ctx: &agg.Context{}}},
		TimeKey: -1, BinCol: -1}
	x := &Ctx{Budget: &memBudget{}}
	for _, mode := range []string{"ids", "lanes"} {
		b.Run(mode, func(b *testing.B) {
			s, err := st.NewSink(x)
			if err != nil {
				b.Fatal(err)
			}
			sk := s.(*aggSink)
			bt := NewBatch([]*vector.Vector{v}, n)
			g := make([]uint32, n)
			b.SetBytes(n * 8)
			b.ReportAllocs()
			for b.Loop() {
				if mode == "lanes" {
					if !sk.denseCount(bt, v) {
						b.Fatal("lanes refused the batch")
					}
					continue
				}
				sk.Groups.assign([]*vector.Vector{v}, nil, n, g)
				sk.states[0].Grow(sk.Groups.N)
				sk.states[0].Update(nil, nil, g)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkAssignMethodStatus groups 64Ki rows by a dictionary-encoded
// method and a status code with a small side, as a cached column has:
// the two-key shape of summarize ... by method, status.
func BenchmarkAssignMethodStatus(b *testing.B) {
	codes := []int64{200, 200, 200, 200, 201, 204, 301, 304, 400, 401, 403, 404, 500, 502, 503}
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1 << 16
	st := vector.New(vector.Int, n)
	mc := make([]uint32, n)
	for i := range n {
		st.AppendInt(codes[r.IntN(len(codes))])
		mc[i] = uint32(r.IntN(len(methods)))
	}
	cols := []*vector.Vector{{Type: vector.String, Len: n, Dict: methods, Codes: mc}, st.WithSmall()}
	g := newGroupTable([]vector.Type{vector.String, vector.Int})
	out := make([]uint32, n)
	b.ReportAllocs()
	for b.Loop() {
		g.assign(cols, nil, n, out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
}
