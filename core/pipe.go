package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// pipe is a pipeline as the planner builds it: plan nodes only (a
// source and its stages), and the schema of its output, which the next
// operator resolves names against. Nothing in it runs: a run builds its
// operators from the nodes (exec.BuildQueryPipeline).
type pipe struct {
	plan.Pipeline
	out exec.Schema
}

// step is what one operator plans to: its stage nodes (a summarize over
// computed aggregations plans three) and their output.
type step struct {
	nodes []plan.Stage
	out   exec.Schema
}

// one is a step of a single node.
func one(st plan.Stage, out exec.Schema) *step {
	return &step{nodes: []plan.Stage{st}, out: out}
}

// sourcePipe is a pipeline that is only its source.
func sourcePipe(src plan.Source) *pipe {
	return &pipe{Pipeline: plan.Pipeline{Source: src, Stages: []plan.Stage{}}, out: exec.Schema(src.Schema)}
}

// add appends a step's nodes.
func (pl *pipe) add(st *step) {
	pl.Stages = append(pl.Stages, st.nodes...)
	pl.out = st.out
}

// fields is s as a node's schema, a copy: nodes share nothing the
// planner still changes.
func fields(s exec.Schema) []plan.Field { return append([]plan.Field(nil), s...) }

// scans reports whether pl reads datasets (or a stream) directly, with
// no filter of its own (search has one).
func (pl *pipe) scans() bool {
	k := pl.Source.Kind
	return (k == plan.SrcScan || k == plan.SrcStream) && pl.Source.Pred == nil
}

// pushDown folds a first where's bounds on _time against constants into
// the scan's time range, so whole parts are skipped by their time range.
// It reports whether the where is nothing but those bounds, and so is
// absorbed. The build derives the statistics and term pruning again.
func pushDown(pl *pipe, st *plan.Stage) bool {
	if st.Kind != plan.SWhere || len(pl.Stages) != 0 || !pl.scans() || pl.out.Index(store.TimeField) < 0 {
		return false
	}
	lo, hi, exact := exec.TimeBounds(st.Pred)
	src := &pl.Source
	if lo != nil && (src.Lo == nil || *lo > *src.Lo) {
		src.Lo = lo
	}
	if hi != nil && (src.Hi == nil || *hi < *src.Hi) {
		src.Hi = hi
	}
	return exact
}

// sortThenTake turns `sort by k | take N` into `top N by k`: the same
// rows in the same order (both sorts are stable), but each worker keeps
// only its best N instead of every row being collected and sorted. It
// reports whether st followed a sort and was merged into it.
func sortThenTake(pl *pipe, st *plan.Stage) bool {
	if st.Kind != plan.STake || len(pl.Stages) == 0 {
		return false
	}
	last := &pl.Stages[len(pl.Stages)-1]
	if last.Kind != plan.SSort {
		return false
	}
	*last = plan.Stage{Kind: plan.STop, N: st.N, Order: last.Order, SortTake: true}
	return true
}

// timeKey is the sort key of column i of s, as the service orders
// events and time series.
func timeKey(s exec.Schema, i int, desc bool) plan.SortKey {
	return plan.SortKey{X: plan.Col(i, s[i].Name, s[i].Type, nil), Desc: desc, NullsLast: desc}
}

// sortTimeSeries orders a final time-bucketed summarize by its time key,
// as the service does.
func sortTimeSeries(pl *pipe) *pipe {
	if len(pl.Stages) == 0 {
		return pl
	}
	s := &pl.Stages[len(pl.Stages)-1]
	if s.Kind != plan.SSummarize || s.TimeKey < 0 {
		return pl
	}
	pl.Stages = append(pl.Stages, plan.Stage{Kind: plan.SSort, Order: []plan.SortKey{timeKey(pl.out, s.TimeKey, false)}})
	return pl
}

// tableSource is the node of a table known when planning (datatable,
// print, externaldata): its cells as constants, as its vectors box them.
func tableSource(sch exec.Schema, vecs []*vector.Vector, rows int) plan.Source {
	ps := plan.Source{Kind: plan.SrcTable, Schema: fields(sch), Cols: make([][]*plan.Expr, len(sch))}
	for i, v := range vecs {
		col := make([]*plan.Expr, rows)
		for r := range col {
			col[r] = plan.Const(sch[i].Type, v.Value(r), nil)
		}
		ps.Cols[i] = col
	}
	return ps
}
