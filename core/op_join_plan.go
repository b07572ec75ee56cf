package core

import (
	"errors"
	"fmt"

	"github.com/aplite/aplite/core/plan"
)

// Joins and lookups as plan nodes: the right side travels as a nested
// pipeline (its column narrowing included, as a nulls stage), the keys
// as expression pairs. The hashed right side is run state (x.runs),
// never part of the node.

// joinKindPlan names each kind in the plan by its canonical APL name.
var joinKindPlan = map[joinKind]string{
	joinInner: "inner", joinInnerUnique: "innerunique", joinLeftOuter: "leftouter",
	joinRightOuter: "rightouter", joinFullOuter: "fullouter", joinLeftSemi: "leftsemi",
	joinLeftAnti: "leftanti", joinRightSemi: "rightsemi", joinRightAnti: "rightanti",
}

func (j *joinSpec) toPlan() (*plan.Stage, bool) {
	right, ok := pipelinePlan(j.rightPl)
	if !ok {
		return nil, false
	}
	pj := &plan.Join{Kind: joinKindPlan[j.kind], RightCols: j.rightCols}
	if pj.RightCols == nil {
		pj.RightCols = []int{}
	}
	for _, k := range j.keys {
		if k.l.node == nil || k.r.node == nil {
			return nil, false
		}
		pj.Left, pj.Right = append(pj.Left, k.l.node), append(pj.Right, k.r.node)
	}
	return &plan.Stage{Kind: plan.SJoin, Schema: schemaPlan(j.sch), Legs: []plan.Leg{{Pipe: *right}}, Join: pj}, true
}

func (s *unusedNullStage) toPlan() (*plan.Stage, bool) {
	var idx []int
	for i, k := range s.keep {
		if !k {
			idx = append(idx, i)
		}
	}
	return &plan.Stage{Kind: plan.SNulls, Idx: idx}, true
}

func buildNulls(ps *plan.Stage, in schema) (stage, error) {
	keep := make([]bool, len(in))
	for i := range keep {
		keep[i] = true
	}
	for _, i := range ps.Idx {
		if i < 0 || i >= len(in) {
			return nil, fmt.Errorf("nulls stage: column %d of %d", i, len(in))
		}
		keep[i] = false
	}
	return &unusedNullStage{sch: in, keep: keep}, nil
}

// buildJoin replays newJoin from the node: the right side is built from
// its pipeline, the keys over each side's schema, and the output takes
// the right columns the node names under the names the plan gives them.
func buildJoin(ps *plan.Stage, in schema, env *buildEnv) (stage, error) {
	pj := ps.Join
	if pj == nil || len(ps.Legs) != 1 || len(pj.Left) != len(pj.Right) || len(pj.Left) == 0 {
		return nil, errors.New("no right side or keys")
	}
	kind, ok := joinKindNames[pj.Kind]
	if !ok {
		return nil, fmt.Errorf("%w join kind %q", plan.ErrUnsupported, pj.Kind)
	}
	rpl, err := buildPipeline(&ps.Legs[0].Pipe, env)
	if err != nil {
		return nil, err
	}
	j := joinSpec{kind: kind, left: in, right: rpl.out(), rightPl: rpl, rightCols: pj.RightCols}
	for i := range pj.Left {
		l, err := buildExpr(pj.Left[i], in)
		if err != nil {
			return nil, err
		}
		r, err := buildExpr(pj.Right[i], j.right)
		if err != nil {
			return nil, err
		}
		if l.typ != r.typ {
			return nil, fmt.Errorf("key %d compares %s with %s", i, l.typ, r.typ)
		}
		j.keys = append(j.keys, joinKey{l: l, r: r, rightCol: -1})
		j.types = append(j.types, l.typ)
	}
	j.outL = kind != joinRightSemi && kind != joinRightAnti
	j.outR = kind != joinLeftSemi && kind != joinLeftAnti
	if j.outL {
		j.sch = append(j.sch, in...)
	}
	if j.outR {
		for _, c := range j.rightCols {
			if c < 0 || c >= len(j.right) || len(j.sch) >= len(ps.Schema) {
				return nil, fmt.Errorf("right column %d of %d", c, len(j.right))
			}
			j.sch = append(j.sch, colDef{ps.Schema[len(j.sch)].Name, j.right[c].Type})
		}
	}
	switch kind {
	case joinRightOuter, joinFullOuter, joinRightSemi, joinRightAnti:
		return &joinStage{joinSpec: j, collectInput: &collectStage{sch: in}}, nil
	}
	return &probeJoinStage{joinSpec: j}, nil
}
