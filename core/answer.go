package core

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/store"
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

func (f *finalStates) get(s *summarizeStage) *aggSink {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[s]
}

// answer turns a run's final batch into the run's Output: the table, the
// shape rendering needs (summary, order), the totals of a time-bucketed
// summarize and the statistics. The Output keeps nothing of the plan or
// the run, so both may be released once it is built.
func (p *planner) answer(x *execCtx, pl *pipeline, b *batch) *output.Output {
	sch := pl.out()
	o := &output.Output{
		Table:       outTable(sch, b),
		Datasets:    slices.Clone(p.datasets),
		Fields:      p.fieldsSeen(pl),
		Start:       p.req.Start,
		End:         p.req.End,
		Stats:       outStats(x.stats, sch, b),
		Order:       outOrder(pl),
		CacheStatus: output.Computed,
	}
	if o.End.IsZero() {
		o.End = x.fn.Now
	}
	o.Messages = damageMessages(p.snaps)
	o.Partial = len(o.Messages) > 0
	if sum := finalSummarize(pl); sum != nil {
		o.Summary = sum.shape()
		if f := x.finals.get(sum); f != nil {
			o.Stats.NumGroups = int64(f.groups.n)
			if sum.timeKey >= 0 {
				o.Totals = sum.totals(f)
			}
		}
	}
	return o
}

// outTable wraps a compacted batch as an output table.
func outTable(sch schema, b *batch) output.Table {
	t := output.Table{Rows: b.N, Columns: make([]output.Column, len(sch))}
	for j, c := range sch {
		t.Columns[j] = output.Column{Name: c.Name, Type: c.Type, Vec: b.Cols[j]}
	}
	return t
}

// outStats copies the scan counters and derives the cursors from the
// result's _time column.
func outStats(st *scanStats, sch schema, b *batch) output.Stats {
	s := output.Stats{
		BlocksExamined: st.blocksExamined.Load(),
		BlocksMatched:  st.blocksMatched.Load(),
		BlocksCached:   st.blocksCached.Load(),
		RowsExamined:   st.rowsExamined.Load(),
		RowsMatched:    st.rowsMatched.Load(),
		PagesDecoded:   st.pagesDecoded.Load(),
		HasBlockTime:   st.seen.Load(),
		MinBlockTime:   st.minBlockTime.Load(),
		MaxBlockTime:   st.maxBlockTime.Load(),
	}
	ti := sch.index(store.TimeField)
	if ti < 0 || sch[ti].Type != vector.DateTime {
		return s
	}
	tv := b.Cols[ti]
	lo, hi, seen := int64(0), int64(0), false
	for i := 0; i < b.N; i++ {
		if tv.IsNull(i) {
			continue
		}
		t := tv.Int(i)
		if !seen || t < lo {
			lo = t
		}
		if !seen || t > hi {
			hi = t
		}
		seen = true
	}
	if seen {
		s.MinCursor, s.MaxCursor = makeCursor(lo), makeCursor(hi)
	}
	return s
}

// finalSummarize returns the summarize stage whose output the result is
// (possibly re-sorted), else nil.
func finalSummarize(pl *pipeline) *summarizeStage {
	for i := len(pl.stages) - 1; i >= 0; i-- {
		switch st := pl.stages[i].(type) {
		case *summarizeStage:
			return st
		case *sortStage:
			continue
		default:
			return nil
		}
	}
	return nil
}

// outOrder reports the result's order when it is by plain columns.
func outOrder(pl *pipeline) []output.Order {
	if len(pl.stages) == 0 {
		return nil
	}
	var keys []sortKey
	switch st := pl.stages[len(pl.stages)-1].(type) {
	case *sortStage:
		keys = st.keys
	case *topStage:
		if !st.sortTake {
			keys = st.keys
		}
	}
	var out []output.Order
	for _, k := range keys {
		if k.e.col >= 0 && k.e.name != "" {
			out = append(out, output.Order{Field: k.e.name, Desc: k.desc})
		}
	}
	return out
}

// fieldsSeen lists, per dataset read, the fields of the query's scan.
func (p *planner) fieldsSeen(pl *pipeline) map[string][]output.Field {
	out := map[string][]output.Field{}
	scan, _ := pl.src.(*scanSource)
	for _, d := range p.datasets {
		out[d] = nil
		if scan == nil {
			continue
		}
		for _, c := range scan.sch {
			out[d] = append(out[d], output.Field{Name: c.Name, Type: c.Type})
		}
	}
	return out
}

// shape describes the summarize for rendering: its keys and, per
// aggregation, the API's operation name, the fields it reads and its
// constant arguments (topk(remote_ip, 1) reads ["remote_ip"], args [1]).
func (s *summarizeStage) shape() *output.Summary {
	sum := &output.Summary{Keys: slices.Clone(s.keyNames), TimeKey: s.timeKey, BinSize: s.binSize}
	for _, a := range s.aggs {
		oa := output.Agg{Op: apiAggName(a.spec), Columns: slices.Clone(a.names)}
		for _, e := range a.args {
			switch {
			case e.isConst():
				if v := e.constValue(); v != nil {
					oa.Args = append(oa.Args, v)
				}
			case e.col >= 0 && e.name != "":
				oa.Fields = append(oa.Fields, e.name)
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

// totals re-aggregates the final groups without the time key, by merging
// their states: exact for every aggregation, and no second scan.
func (s *summarizeStage) totals(f *aggSink) *output.Table {
	var keyCols []*vector.Vector
	var types []vector.Type
	var sch schema
	for i, k := range f.groups.keys {
		if i == s.timeKey {
			continue
		}
		keyCols = append(keyCols, k)
		types = append(types, k.Type)
		sch = append(sch, s.sch[i])
	}
	g := newGroupTable(types)
	into := make([]uint32, f.groups.n)
	g.assign(keyCols, nil, f.groups.n, into)
	if len(types) == 0 {
		g.n = 1
	}
	vecs := append([]*vector.Vector(nil), g.keys...)
	for i, a := range s.aggs {
		st, err := a.spec.New(a.ctx, a.types, a.consts)
		if err != nil {
			return nil
		}
		st.Grow(g.n)
		st.Merge(f.states[i], into)
		res := st.Result(g.n)
		for j, v := range res {
			col := s.sch[len(s.keys)+aggOffset(s, i)+j]
			sch = append(sch, col)
			vecs = append(vecs, castVector(v, col.Type))
		}
	}
	t := outTable(sch, newBatch(vecs, g.n))
	return &t
}

// aggOffset is the position of aggregation i's first column among the
// aggregation columns.
func aggOffset(s *summarizeStage, i int) int {
	n := 0
	for _, a := range s.aggs[:i] {
		n += len(a.outs)
	}
	return n
}

// damageMessages turns the damaged blocks of the snapshots a query read
// into status messages: a short answer is never presented as whole.
func damageMessages(snaps []*store.Snapshot) []output.Message {
	var out []output.Message
	for _, s := range snaps {
		if len(s.Damaged) == 0 {
			continue
		}
		names := make([]string, 0, len(s.Damaged))
		for _, d := range s.Damaged {
			names = append(names, d.Name+" ("+d.Reason+")")
		}
		out = append(out, output.Message{Priority: "error", Count: len(s.Damaged), Code: "apl_partialresult_damagedblocks",
			Msg: fmt.Sprintf("dataset %s: %d block(s) set aside as corrupt, their events are missing from this result: %s",
				s.Dataset, len(s.Damaged), strings.Join(names, "; "))})
	}
	return out
}
