package exec

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

func sourcePlan(s Source) (*plan.Source, bool) {
	switch s := s.(type) {
	case *ScanSource:
		return s.toPlan()
	case *FilteredSource:
		scan, ok := s.Src.(*ScanSource)
		w, okw := s.St.(*whereStage)
		if !ok || !okw || w.Pred.Node == nil {
			return nil, false
		}
		ps, ok := scan.toPlan()
		if ok {
			ps.Pred = w.Pred.Node
		}
		return ps, ok
	case *TableSource:
		return s.toPlan()
	case *UnionSource:
		legs, ok := legsPlan(s.Parts)
		return &plan.Source{Kind: plan.SrcUnion, Schema: schemaPlan(s.Sch), Legs: legs, WithSource: s.WithSource}, ok
	}
	return nil, false
}

// toPlan is a scan's node: its datasets and bounds. Its blocks are the
// snapshots the planner took (a stream: the request's table), bound
// again when the node is built.
func (s *ScanSource) toPlan() (*plan.Source, bool) {
	kind := plan.SrcScan
	if s.Stream != nil {
		kind = plan.SrcStream
	}
	ps := &plan.Source{Kind: kind, Schema: schemaPlan(s.Sch), Datasets: s.Datasets, WithSource: s.WithSource}
	if s.HasLo {
		lo := s.TimeLo
		ps.Lo = &lo
	}
	if s.HasHi {
		hi := s.TimeHi
		ps.Hi = &hi
	}
	return ps, true
}

// toPlan writes a table known when planning cell by cell as constants,
// and a nested pipeline as its plan.
func (t *TableSource) toPlan() (*plan.Source, bool) {
	if t.sub != nil {
		sub, ok := PipelinePlan(t.sub)
		return &plan.Source{Kind: plan.SrcSub, Schema: schemaPlan(t.Sch), Sub: sub}, ok
	}
	if t.B == nil {
		return nil, false
	}
	ps := &plan.Source{Kind: plan.SrcTable, Schema: schemaPlan(t.Sch), Cols: make([][]*plan.Expr, len(t.Sch))}
	for i, v := range t.B.Cols {
		col := make([]*plan.Expr, t.B.N)
		for r := range col {
			col[r] = plan.Const(t.Sch[i].Type, v.Value(r), nil)
		}
		ps.Cols[i] = col
	}
	return ps, true
}

func buildSource(ps *plan.Source, env *BuildEnv) (Source, error) {
	want := schemaFromPlan(ps.Schema)
	var src Source
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
		sub, err := BuildQueryPipeline(ps.Sub, env)
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
	if got := src.Schema(); !sameSchema(got, want) {
		return nil, fmt.Errorf("its output is %v here, the plan says %v", got, want)
	}
	return src, nil
}

// buildScan binds a scan node to the planner's snapshots of its
// datasets. Its schema is the node's: the planner worked it out from the
// same snapshots' blocks, which need not be read again. A filter
// (search's predicate) runs in the scan's workers and hands the scan its
// block pruning, as searchSource does.
func buildScan(ps *plan.Source, sch Schema, env *BuildEnv) (Source, error) {
	s := &ScanSource{Sch: sch, Datasets: ps.Datasets, WithSource: ps.WithSource}
	for i, ds := range ps.Datasets {
		snap := env.snaps[ds]
		if snap == nil {
			return nil, fmt.Errorf("no snapshot of dataset %q", ds)
		}
		for _, p := range snap.Parts {
			s.Parts = append(s.Parts, scanPart{Part: p, dataset: i})
		}
	}
	bounds(s, ps)
	if ps.Pred == nil {
		return s, nil
	}
	pred, err := buildExpr(ps.Pred, s.Sch)
	if err != nil {
		return nil, err
	}
	w := newWhereStage(s.Sch, pred)
	s.Prune = append(s.Prune, w.Push.Prune...)
	s.Granules = append(s.Granules, w.Push.Granules...)
	return &FilteredSource{Src: s, St: w}, nil
}

func bounds(s *ScanSource, ps *plan.Source) {
	if ps.Lo != nil {
		s.TimeLo, s.HasLo = *ps.Lo, true
	}
	if ps.Hi != nil {
		s.TimeHi, s.HasHi = *ps.Hi, true
	}
}

// buildStream binds a stream scan to the request's table of that name;
// its chunks convert to the types of the node's schema, the ones the
// query was planned with.
func buildStream(ps *plan.Source, sch Schema, env *BuildEnv) (Source, error) {
	if len(ps.Datasets) != 1 || env.Streams[ps.Datasets[0]] == nil {
		return nil, fmt.Errorf("no stream %v", ps.Datasets)
	}
	types := make(map[string]vector.Type, len(sch))
	for _, c := range sch {
		types[c.Name] = c.Type
	}
	s := &ScanSource{Sch: sch, Datasets: ps.Datasets,
		Stream: &streamScan{Table: env.Streams[ps.Datasets[0]], Planned: types}}
	bounds(s, ps)
	return s, nil
}

// buildTable makes a table's batch from its constants; plan.Source's
// check made sure every column has as many.
func buildTable(ps *plan.Source, sch Schema) (Source, error) {
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
	return &TableSource{Sch: sch, B: NewBatch(vecs, rows)}, nil
}
