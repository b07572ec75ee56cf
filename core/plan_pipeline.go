package core

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

// pipelinePlan is the plan of pl; ok is false when its source, a stage
// or an expression has no plan form.
func pipelinePlan(pl *pipeline) (*plan.Pipeline, bool) {
	src, ok := sourcePlan(pl.src)
	if !ok {
		return nil, false
	}
	pp := &plan.Pipeline{Source: *src, Stages: make([]plan.Stage, 0, len(pl.stages))}
	for _, st := range pl.stages {
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
		pp, ok := pipelinePlan(p.pl)
		if !ok {
			return nil, false
		}
		legs[i] = plan.Leg{Name: p.name, Pipe: *pp}
	}
	return legs, true
}

func (g *getSchemaStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SGetSchema, Schema: schemaPlan(g.out())}, true
}

func (s *sampleStage) toPlan() (*plan.Stage, bool) {
	return &plan.Stage{Kind: plan.SSample, P: plan.Const(vector.Float, s.p, nil), Seed: s.seed}, true
}

// toPlan leaves out the union's first part, its own input.
func (u *unionStage) toPlan() (*plan.Stage, bool) {
	legs, ok := legsPlan(u.src.parts[1:])
	return &plan.Stage{Kind: plan.SUnion, Schema: schemaPlan(u.src.sch), Legs: legs, WithSource: u.src.withSource}, ok
}

// buildEnv is what building a pipeline binds its nodes to: the
// snapshots the planner took, by dataset, the request's streams, and
// the query's range for the aggregations that read it.
type buildEnv struct {
	snaps   map[string]*store.Snapshot
	streams streamTables
	actx    agg.Context
}

func newBuildEnv(snaps []*store.Snapshot, actx agg.Context) *buildEnv {
	env := &buildEnv{snaps: make(map[string]*store.Snapshot, len(snaps)), actx: actx}
	for _, s := range snaps {
		env.snaps[s.Dataset] = s
	}
	return env
}

// buildEnv binds a plan to what p took while planning.
func (p *planner) buildEnv() *buildEnv {
	env := newBuildEnv(p.snaps, agg.Context{Start: p.req.Start, End: p.req.End})
	env.streams = p.streams
	return env
}

// buildPipeline builds the operators of pp for one run. Every source
// and stage is made from its node; what a node does not say (a scan's
// block pruning) is derived here as the planner derives it.
func buildPipeline(pp *plan.Pipeline, env *buildEnv) (*pipeline, error) {
	src, err := buildSource(&pp.Source, env)
	if err != nil {
		return nil, fmt.Errorf("%s source: %w", pp.Source.Kind, err)
	}
	pl := &pipeline{src: src}
	err = pl.buildStages(pp.Stages, func(ps *plan.Stage, in schema) (stage, error) {
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
func (pl *pipeline) buildStages(nodes []plan.Stage, build func(*plan.Stage, schema) (stage, error)) error {
	in := pl.src.schema()
	for i := range nodes {
		st, err := build(&nodes[i], in)
		if err != nil {
			return err
		}
		in = st.out()
		if pushDown(pl, st) {
			continue
		}
		pl.stages = append(pl.stages, st)
	}
	return nil
}

// buildQueryPipeline builds a query's body, and a nested pipeline the
// planner evaluates as a table (subquery): a top right above their scan
// hands it its threshold, as prepare and subquery attach it. A join's
// right side and a union's legs get none, as when planned.
func buildQueryPipeline(pp *plan.Pipeline, env *buildEnv) (*pipeline, error) {
	pl, err := buildPipeline(pp, env)
	if err != nil {
		return nil, err
	}
	attachTopPrune(pl)
	return pl, nil
}

func buildPipelineStage(ps *plan.Stage, in schema, env *buildEnv) (stage, error) {
	switch ps.Kind {
	case plan.SUnion:
		st, err := buildUnionStage(ps, in, env)
		return checkedStage(ps, st, err)
	case plan.SSample:
		return buildSample(ps, in)
	case plan.SGetSchema:
		return &getSchemaStage{in: in}, nil
	case plan.SNulls:
		return buildNulls(ps, in)
	case plan.SRedact:
		st, err := buildRedact(ps, in)
		return checkedStage(ps, st, err)
	case plan.SParseKv:
		st, err := buildParseKv(ps, in)
		return checkedStage(ps, st, err)
	case plan.SSeries:
		st, err := buildMakeSeries(ps, in, env.actx)
		return checkedStage(ps, st, err)
	case plan.SJoin:
		st, err := buildJoin(ps, in, env)
		return checkedStage(ps, st, err)
	}
	return buildStage(ps, in, env.actx)
}

func buildSample(ps *plan.Stage, in schema) (stage, error) {
	if ps.P == nil || ps.P.Type != vector.Float {
		return nil, errors.New("sample stage: no real proportion")
	}
	f, _ := ps.P.ConstValue().(float64)
	if !(f > 0 && f < 1) {
		return nil, fmt.Errorf("sample stage: proportion %v", f)
	}
	return &sampleStage{in: in, p: f, seed: ps.Seed}, nil
}

func buildUnionStage(ps *plan.Stage, in schema, env *buildEnv) (stage, error) {
	input := &tableSource{sch: in, eval: func(*execCtx) (*batch, error) {
		return nil, errors.New("union: input not collected before the union ran")
	}}
	us, err := buildUnion(ps.Legs, ps.WithSource, ps.Schema, env, &unionPart{pl: &pipeline{src: input}})
	if err != nil {
		return nil, err
	}
	return &unionStage{in: in, src: us}, nil
}

func buildUnion(legs []plan.Leg, withSource string, want []plan.Field, env *buildEnv, first *unionPart) (*unionSource, error) {
	us := &unionSource{withSource: withSource, sch: schemaFromPlan(want)}
	if first != nil {
		us.parts = append(us.parts, *first)
	}
	for i := range legs {
		pl, err := buildPipeline(&legs[i].Pipe, env)
		if err != nil {
			return nil, err
		}
		us.parts = append(us.parts, unionPart{pl: pl, name: legs[i].Name})
	}
	var schemas []schema
	for _, pt := range us.parts {
		schemas = append(schemas, pt.pl.out())
	}
	got := unionSchema(schemas...)
	if withSource != "" && got.index(withSource) < 0 {
		got = append(got, colDef{withSource, vector.String})
	}
	if !sameSchema(got, us.sch) {
		return nil, fmt.Errorf("its output is %v here, the plan says %v", got, us.sch)
	}
	return us, nil
}

// planGap names the first source or stage of pl (nested ones included)
// without a plan form, for the error that reports a planner bug.
func planGap(pl *pipeline) string {
	if _, ok := sourcePlan(pl.src); !ok {
		return sourceGap(pl.src)
	}
	for _, st := range pl.stages {
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

func sourceGap(s source) string {
	switch s := s.(type) {
	case *tableSource:
		if s.sub != nil {
			return planGap(s.sub)
		}
	case *unionSource:
		for _, pt := range s.parts {
			if g := planGap(pt.pl); g != "" {
				return g
			}
		}
	}
	return fmt.Sprintf("%T", s)
}
