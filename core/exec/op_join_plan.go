package exec

import (
	"errors"
	"fmt"

	"github.com/aplite/aplite/core/plan"
)

// Joins and lookups as plan nodes: the right side travels as a nested
// Pipeline (its column narrowing included, as a nulls stage), the keys
// as expression pairs. The hashed right side is run state (x.runs),
// never part of the node.

// joinKindPlan names each kind in the plan by its canonical APL name.
var joinKindPlan = map[joinKind]string{
	joinInner: "inner", joinInnerUnique: "innerunique", joinLeftOuter: "leftouter",
	joinRightOuter: "rightouter", joinFullOuter: "fullouter", joinLeftSemi: "leftsemi",
	joinLeftAnti: "leftanti", joinRightSemi: "rightsemi", joinRightAnti: "rightanti",
}

func (j *joinSpec) toPlan() (*plan.Stage, bool) {
	right, ok := PipelinePlan(j.RightPl)
	if !ok {
		return nil, false
	}
	pj := &plan.Join{Kind: joinKindPlan[j.Kind], RightCols: j.RightCols}
	if pj.RightCols == nil {
		pj.RightCols = []int{}
	}
	for _, k := range j.Keys {
		if k.L.Node == nil || k.R.Node == nil {
			return nil, false
		}
		pj.Left, pj.Right = append(pj.Left, k.L.Node), append(pj.Right, k.R.Node)
	}
	return &plan.Stage{Kind: plan.SJoin, Schema: schemaPlan(j.Sch), Legs: []plan.Leg{{Pipe: *right}}, Join: pj}, true
}

func (s *unusedNullStage) toPlan() (*plan.Stage, bool) {
	var idx []int
	for i, k := range s.Keep {
		if !k {
			idx = append(idx, i)
		}
	}
	return &plan.Stage{Kind: plan.SNulls, Idx: idx}, true
}

func buildNulls(ps *plan.Stage, in Schema) (Stage, error) {
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
	return &unusedNullStage{Sch: in, Keep: keep}, nil
}

// buildJoin replays newJoin from the node: the right side is built from
// its pipeline, the keys over each side's schema, and the output takes
// the right columns the node names under the names the plan gives them.
func buildJoin(ps *plan.Stage, in Schema, env *BuildEnv) (Stage, error) {
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
	j := joinSpec{Kind: kind, Left: in, Right: rpl.Out(), RightPl: rpl, RightCols: pj.RightCols}
	for i := range pj.Left {
		l, err := buildExpr(pj.Left[i], in)
		if err != nil {
			return nil, err
		}
		r, err := buildExpr(pj.Right[i], j.Right)
		if err != nil {
			return nil, err
		}
		if l.Typ != r.Typ {
			return nil, fmt.Errorf("key %d compares %s with %s", i, l.Typ, r.Typ)
		}
		j.Keys = append(j.Keys, joinKey{L: l, R: r, RightCol: -1})
		j.Types = append(j.Types, l.Typ)
	}
	j.OutL = kind != joinRightSemi && kind != joinRightAnti
	j.OutR = kind != joinLeftSemi && kind != joinLeftAnti
	if j.OutL {
		j.Sch = append(j.Sch, in...)
	}
	if j.OutR {
		for _, c := range j.RightCols {
			if c < 0 || c >= len(j.Right) || len(j.Sch) >= len(ps.Schema) {
				return nil, fmt.Errorf("right column %d of %d", c, len(j.Right))
			}
			j.Sch = append(j.Sch, ColDef{Name: ps.Schema[len(j.Sch)].Name, Type: j.Right[c].Type})
		}
	}
	switch kind {
	case joinRightOuter, joinFullOuter, joinRightSemi, joinRightAnti:
		return &joinStage{joinSpec: j, CollectInput: &collectStage{Sch: in}}, nil
	}
	return &probeJoinStage{joinSpec: j}, nil
}
