package exec

import (
	"errors"
	"fmt"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Whole pipelines as plan nodes and back: a source node and its stage
// nodes (plan.Pipeline). Nested pipelines (a union's legs, a let table,
// a parenthesized source) plan and build the same way, recursively.

// PipelinePlan is the plan of pl; ok is false when its source, a stage
// or an expression has no plan form.
func PipelinePlan(pl *Pipeline) (*plan.Pipeline, bool) {
	src, ok := sourcePlan(pl.Src)
	if !ok {
		return nil, false
	}
	pp := &plan.Pipeline{Source: *src, Stages: make([]plan.Stage, 0, len(pl.Stages))}
	for _, st := range pl.Stages {
		p, ok := st.(planned)
		if !ok {
			return nil, false
		}
		ps, ok := p.toPlan()
		if !ok {
			return nil, false
		}
		pp.Stages = append(pp.Stages, *ps)
	}
	return pp, true
}

func legsPlan(parts []unionPart) ([]plan.Leg, bool) {
	legs := make([]plan.Leg, len(parts))
	for i, p := range parts {
		pp, ok := PipelinePlan(p.Pl)
		if !ok {
			return nil, false
		}
		legs[i] = plan.Leg{Name: p.Name, Pipe: *pp}
	}
	return legs, true
}

func (g *getSchemaStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SGetSchema, Schema: schemaPlan(g.Out())}, true
}

func (s *sampleStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SSample, P: plan.Const(vector.Float, s.P, nil), Seed: s.Seed}, true
}

// toPlan leaves out the union's first part, its own input.
func (u *unionStage) toPlan() (*plan.Stage, bool) {
	legs, ok := legsPlan(u.Src.Parts[1:])
	return &plan.Stage{Kind: plan.SUnion, Schema: schemaPlan(u.Src.Sch), Legs: legs, WithSource: u.Src.WithSource}, ok
}

// BuildEnv is what building a pipeline binds its nodes to: the
// snapshots the planner took, by dataset, the request's streams, and
// the query's range for the aggregations that read it.
type BuildEnv struct {
	snaps   map[string]*store.Snapshot
	Streams StreamTables
	actx    agg.Context
}

// NewBuildEnv is the environment to build a query's operators in: the
// snapshots the planner took, found by dataset name, and the query's range.
func NewBuildEnv(snaps []*store.Snapshot, actx agg.Context) *BuildEnv {
	env := &BuildEnv{snaps: make(map[string]*store.Snapshot, len(snaps)), actx: actx}
	for _, s := range snaps {
		env.snaps[s.Dataset] = s
	}
	return env
}

// buildPipeline builds the operators of pp for one run. Every source
// and stage is made from its node; what a node does not say (a scan's
// block pruning) is derived here as the planner derives it.
func buildPipeline(pp *plan.Pipeline, env *BuildEnv) (*Pipeline, error) {
	src, err := buildSource(&pp.Source, env)
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", pp.Source.Kind, err)
	}
	pl := &Pipeline{Src: src}
	err = pl.buildStages(pp.Stages, func(ps *plan.Stage, in Schema) (Stage, error) {
		return buildPipelineStage(ps, in, env)
	})
	if err != nil {
		return nil, err
	}
	return pl, nil
}

// buildStages builds the stage of each node in turn over the output of
// the one before (the source's for the first) and appends it to pl,
// unless pushDown folds it into the source.
func (pl *Pipeline) buildStages(nodes []plan.Stage, build func(*plan.Stage, Schema) (Stage, error)) error {
	in := pl.Src.Schema()
	for i := range nodes {
		st, err := build(&nodes[i], in)
		if err != nil {
			return err
		}
		in = st.Out()
		if pushDown(pl, st) {
			continue
		}
		pl.Stages = append(pl.Stages, st)
	}
	return nil
}

// BuildQueryPipeline builds a query's body, and a nested pipeline the
// planner evaluates as a table (subquery): a top right above their scan
// hands it its threshold, as prepare and subquery attach it. A join's
// right side and a union's legs get none, as when planned.
func BuildQueryPipeline(pp *plan.Pipeline, env *BuildEnv) (*Pipeline, error) {
	pl, err := buildPipeline(pp, env)
	if err != nil {
		return nil, err
	}
	attachTopPrune(pl)
	return pl, nil
}

func buildPipelineStage(ps *plan.Stage, in Schema, env *BuildEnv) (Stage, error) {
	switch ps.Kind {
	case plan.SUnion:
		st, err := buildUnionStage(ps, in, env)
		return checkedStage(ps, st, err)
	case plan.SSample:
		return buildSample(ps, in)
	case plan.SGetSchema:
		return &getSchemaStage{In: in}, nil
	case plan.SNulls:
		return buildNulls(ps, in)
	case plan.SSeries:
		st, err := buildMakeSeries(ps, in, env.actx)
		return checkedStage(ps, st, err)
	case plan.SJoin:
		st, err := buildJoin(ps, in, env)
		return checkedStage(ps, st, err)
	}
	return buildStage(ps, in, env.actx)
}

func buildSample(ps *plan.Stage, in Schema) (Stage, error) {
	if ps.P == nil || ps.P.Type != vector.Float {
		return nil, errors.New("sample stage: no real proportion")
	}
	f, _ := ps.P.ConstValue().(float64)
	if !(f > 0 && f < 1) {
		return nil, fmt.Errorf("sample stage: proportion %v", f)
	}
	return &sampleStage{In: in, P: f, Seed: ps.Seed}, nil
}

func buildUnionStage(ps *plan.Stage, in Schema, env *BuildEnv) (Stage, error) {
	input := &TableSource{Sch: in, Eval: func(*Ctx) (*Batch, error) {
		return nil, errors.New("union: input not collected before the union ran")
	}}
	us, err := buildUnion(ps.Legs, ps.WithSource, ps.Schema, env, &unionPart{Pl: &Pipeline{Src: input}})
	if err != nil {
		return nil, err
	}
	return &unionStage{In: in, Src: us}, nil
}

func buildUnion(legs []plan.Leg, withSource string, want []plan.Field, env *BuildEnv, first *unionPart) (*UnionSource, error) {
	us := &UnionSource{WithSource: withSource, Sch: schemaFromPlan(want)}
	if first != nil {
		us.Parts = append(us.Parts, *first)
	}
	for i := range legs {
		pl, err := buildPipeline(&legs[i].Pipe, env)
		if err != nil {
			return nil, err
		}
		us.Parts = append(us.Parts, unionPart{Pl: pl, Name: legs[i].Name})
	}
	var schemas []Schema
	for _, pt := range us.Parts {
		schemas = append(schemas, pt.Pl.Out())
	}
	got := UnionSchema(schemas...)
	if withSource != "" && got.Index(withSource) < 0 {
		got = append(got, ColDef{Name: withSource, Type: vector.String})
	}
	if !sameSchema(got, us.Sch) {
		return nil, fmt.Errorf("its output is %v here, the plan says %v", got, us.Sch)
	}
	return us, nil
}

// PlanGap names the first source or stage of pl (nested ones included)
// without a plan form, for the error that reports a planner bug.
func PlanGap(pl *Pipeline) string {
	if _, ok := sourcePlan(pl.Src); !ok {
		return sourceGap(pl.Src)
	}
	for _, st := range pl.Stages {
		p, ok := st.(planned)
		if !ok {
			return fmt.Sprintf("%T", st)
		}
		if _, ok := p.toPlan(); !ok {
			return fmt.Sprintf("an expression of %T", st)
		}
	}
	return ""
}

func sourceGap(s Source) string {
	switch s := s.(type) {
	case *TableSource:
		if s.sub != nil {
			return PlanGap(s.sub)
		}
	case *UnionSource:
		for _, pt := range s.Parts {
			if g := PlanGap(pt.Pl); g != "" {
				return g
			}
		}
	}
	return fmt.Sprintf("%T", s)
}
