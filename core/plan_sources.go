package core

import (
	"errors"
	"fmt"

	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// Sources as plan nodes and back: a scan names its datasets (its blocks
// are the planner's snapshots, bound when built), a table known when
// planning holds its cells as constants, a nested pipeline and a union's
// legs are pipelines.

func sourcePlan(s source) (*plan.Source, bool) {
	switch s := s.(type) {
	case *scanSource:
		return s.toPlan()
	case *filteredSource:
		scan, ok := s.src.(*scanSource)
		w, okw := s.st.(*whereStage)
		if !ok || !okw || w.pred.node == nil {
			return nil, false
		}
		ps, ok := scan.toPlan()
		if ok {
			ps.Pred = w.pred.node
		}
		return ps, ok
	case *tableSource:
		return s.toPlan()
	case *unionSource:
		legs, ok := legsPlan(s.parts)
		return &plan.Source{Kind: plan.SrcUnion, Schema: schemaPlan(s.sch), Legs: legs, WithSource: s.withSource}, ok
	}
	return nil, false
}

// toPlan is a scan's node: its datasets and bounds. Its blocks are the
// snapshots the planner took (a stream: the request's table), bound
// again when the node is built.
func (s *scanSource) toPlan() (*plan.Source, bool) {
	kind := plan.SrcScan
	if s.stream != nil {
		kind = plan.SrcStream
	}
	ps := &plan.Source{Kind: kind, Schema: schemaPlan(s.sch), Datasets: s.datasets, WithSource: s.withSource}
	if s.hasLo {
		lo := s.timeLo
		ps.Lo = &lo
	}
	if s.hasHi {
		hi := s.timeHi
		ps.Hi = &hi
	}
	return ps, true
}

// toPlan writes a table known when planning cell by cell as constants,
// and a nested pipeline as its plan.
func (t *tableSource) toPlan() (*plan.Source, bool) {
	if t.sub != nil {
		sub, ok := pipelinePlan(t.sub)
		return &plan.Source{Kind: plan.SrcSub, Schema: schemaPlan(t.sch), Sub: sub}, ok
	}
	if t.b == nil {
		return nil, false
	}
	ps := &plan.Source{Kind: plan.SrcTable, Schema: schemaPlan(t.sch), Cols: make([][]*plan.Expr, len(t.sch))}
	for i, v := range t.b.Cols {
		col := make([]*plan.Expr, t.b.N)
		for r := range col {
			col[r] = plan.Const(t.sch[i].Type, v.Value(r), nil)
		}
		ps.Cols[i] = col
	}
	return ps, true
}

func buildSource(ps *plan.Source, env *buildEnv) (source, error) {
	want := schemaFromPlan(ps.Schema)
	var src source
	switch ps.Kind {
	case plan.SrcScan:
		s, err := buildScan(ps, want, env)
		if err != nil {
			return nil, err
		}
		src = s
	case plan.SrcStream:
		s, err := buildStream(ps, want, env)
		if err != nil {
			return nil, err
		}
		src = s
	case plan.SrcTable:
		t, err := buildTable(ps, want)
		if err != nil {
			return nil, err
		}
		src = t
	case plan.SrcSub:
		if ps.Sub == nil {
			return nil, errors.New("no pipeline")
		}
		sub, err := buildQueryPipeline(ps.Sub, env)
		if err != nil {
			return nil, err
		}
		src = subSource(sub)
	case plan.SrcUnion:
		us, err := buildUnion(ps.Legs, ps.WithSource, ps.Schema, env, nil)
		if err != nil {
			return nil, err
		}
		src = us
	default:
		return nil, fmt.Errorf("%w source kind %q", plan.ErrUnsupported, ps.Kind)
	}
	if got := src.schema(); !sameSchema(got, want) {
		return nil, fmt.Errorf("its output is %v here, the plan says %v", got, want)
	}
	return src, nil
}

// buildScan binds a scan node to the planner's snapshots of its
// datasets. Its schema is the node's: the planner worked it out from the
// same snapshots' blocks, which need not be read again. A filter
// (search's predicate) runs in the scan's workers and hands the scan its
// block pruning, as searchSource does.
func buildScan(ps *plan.Source, sch schema, env *buildEnv) (source, error) {
	s := &scanSource{sch: sch, datasets: ps.Datasets, withSource: ps.WithSource}
	for i, ds := range ps.Datasets {
		snap := env.snaps[ds]
		if snap == nil {
			return nil, fmt.Errorf("no snapshot of dataset %q", ds)
		}
		for _, p := range snap.Parts {
			s.parts = append(s.parts, scanPart{part: p, dataset: i})
		}
	}
	bounds(s, ps)
	if ps.Pred == nil {
		return s, nil
	}
	pred, err := buildExpr(ps.Pred, s.sch)
	if err != nil {
		return nil, err
	}
	w := newWhereStage(s.sch, pred)
	s.prune = append(s.prune, w.push.prune...)
	s.granules = append(s.granules, w.push.granules...)
	return &filteredSource{src: s, st: w}, nil
}

func bounds(s *scanSource, ps *plan.Source) {
	if ps.Lo != nil {
		s.timeLo, s.hasLo = *ps.Lo, true
	}
	if ps.Hi != nil {
		s.timeHi, s.hasHi = *ps.Hi, true
	}
}

// buildStream binds a stream scan to the request's table of that name;
// its chunks convert to the types of the node's schema, the ones the
// query was planned with.
func buildStream(ps *plan.Source, sch schema, env *buildEnv) (source, error) {
	if len(ps.Datasets) != 1 || env.streams[ps.Datasets[0]] == nil {
		return nil, fmt.Errorf("no stream %v", ps.Datasets)
	}
	types := make(map[string]vector.Type, len(sch))
	for _, c := range sch {
		types[c.Name] = c.Type
	}
	s := &scanSource{sch: sch, datasets: ps.Datasets,
		stream: &streamScan{table: env.streams[ps.Datasets[0]], planned: types}}
	bounds(s, ps)
	return s, nil
}

// buildTable makes a table's batch from its constants; plan.Source's
// check made sure every column has as many.
func buildTable(ps *plan.Source, sch schema) (source, error) {
	if len(ps.Cols) != len(sch) {
		return nil, fmt.Errorf("%d columns of cells for %d columns", len(ps.Cols), len(sch))
	}
	rows := 0
	if len(ps.Cols) > 0 {
		rows = len(ps.Cols[0])
	}
	vecs := make([]*vector.Vector, len(sch))
	for i, c := range sch {
		vecs[i] = vector.New(c.Type, rows)
		for _, cell := range ps.Cols[i] {
			if cell.Type != c.Type {
				return nil, fmt.Errorf("a cell of column %s is %s, not %s", c.Name, cell.Type, c.Type)
			}
			vecs[i].AppendValue(cell.ConstValue())
		}
	}
	return &tableSource{sch: sch, b: newBatch(vecs, rows)}, nil
}
