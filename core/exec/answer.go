package exec

import (
	"slices"
	"sync"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/vector"
)

// finalStates keeps each summarize's merged groups and states of one run,
// for the output's group count and _totals. It is run state, so it lives
// in the execCtx and never on the plan node.
type finalStates struct {
	mu sync.Mutex
	m  map[*summarizeStage]*aggSink
}

func (f *finalStates) set(s *summarizeStage, a *aggSink) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[*summarizeStage]*aggSink{}
	}
	f.m[s] = a
}

func (f *finalStates) Get(s *summarizeStage) *aggSink {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[s]
}

// outTable wraps a compacted batch as an output table.
func outTable(sch Schema, b *Batch) output.Table {
	t := output.Table{Rows: b.N, Columns: make([]output.Column, len(sch))}
	for j, c := range sch {
		t.Columns[j] = output.Column{Name: c.Name, Type: c.Type, Vec: b.Cols[j]}
	}
	return t
}

// Shape describes the summarize for rendering: its keys and, per
// aggregation, the API's operation name, the fields it reads and its
// constant arguments (topk(remote_ip, 1) reads ["remote_ip"], args [1]).
func (s *summarizeStage) Shape() *output.Summary {
	sum := &output.Summary{Keys: slices.Clone(s.KeyNames), TimeKey: s.TimeKey, BinSize: s.BinSize}
	for _, a := range s.Aggs {
		oa := output.Agg{Op: apiAggName(a.Spec), Columns: slices.Clone(a.Names)}
		for _, e := range a.Args {
			switch {
			case e.IsConst():
				if v := e.ConstValue(); v != nil {
					oa.Args = append(oa.Args, v)
				}
			case e.Col >= 0 && e.Name != "":
				oa.Fields = append(oa.Fields, e.Name)
			}
		}
		sum.Aggs = append(sum.Aggs, oa)
	}
	return sum
}

// apiAggName is the agg.name the clients accept.
func apiAggName(s *agg.Spec) string {
	if s.APIName != "" {
		return s.APIName
	}
	return "computed"
}

// Totals re-aggregates the final groups without the time key, by merging
// their states: exact for every aggregation, and no second scan.
func (s *summarizeStage) Totals(f *aggSink) *output.Table {
	var keyCols []*vector.Vector
	var types []vector.Type
	var sch Schema
	for i, k := range f.Groups.keyCols() {
		if i == s.TimeKey {
			continue
		}
		keyCols = append(keyCols, k)
		types = append(types, k.Type)
		sch = append(sch, s.Sch[i])
	}
	g := newGroupTable(types)
	into := make([]uint32, f.Groups.N)
	g.assign(keyCols, nil, f.Groups.N, into)
	if len(types) == 0 {
		g.N = 1
	}
	vecs := append([]*vector.Vector(nil), g.keys...)
	for i, a := range s.Aggs {
		st, err := a.Spec.New(a.Ctx, a.Types, a.Consts)
		if err != nil {
			return nil
		}
		st.Grow(g.N)
		st.Merge(f.states[i], into)
		res := st.Result(g.N)
		for j, v := range res {
			col := s.Sch[len(s.Keys)+aggOffset(s, i)+j]
			sch = append(sch, col)
			vecs = append(vecs, castVector(v, col.Type))
		}
	}
	t := outTable(sch, NewBatch(vecs, g.N))
	return &t
}

// aggOffset is the position of aggregation i's first column among the
// aggregation columns.
func aggOffset(s *summarizeStage, i int) int {
	n := 0
	for _, a := range s.Aggs[:i] {
		n += len(a.Outs)
	}
	return n
}
