package core

import (
	"errors"
	"fmt"
	"math"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// make-series as a plan node: the axis, keys and aggregations as
// summarize has them, the step and bounds as constants in the domain
// the stage bins in, and the defaults as constants.

func (st *makeSeriesStage) toPlan() (*plan.Stage, bool) {
	keys, ok := exprNodes(st.keys)
	if !ok || st.axis.node == nil {
		return nil, false
	}
	ps := &plan.Stage{Kind: plan.SSeries, Schema: schemaPlan(st.sch), Keys: keys,
		Series: &plan.Series{Axis: st.axis.node, Defaults: []*plan.Expr{}}}
	bound := func(i *int64, f *float64) *plan.Expr {
		switch {
		case st.intAxis && i != nil:
			return plan.Const(vector.Int, *i, nil)
		case !st.intAxis && f != nil:
			return plan.Const(vector.Float, *f, nil)
		}
		return nil
	}
	step := st.step
	ps.Series.Step = bound(&step, &st.fstep)
	ps.Series.From, ps.Series.To = bound(st.ifrom, st.from), bound(st.ito, st.to)
	for i, a := range st.aggs {
		pa, ok := aggPlan(a)
		if !ok {
			return nil, false
		}
		ps.Aggs = append(ps.Aggs, pa)
		t := a.outs[0]
		if st.defaults[i] == nil {
			t = vector.Null
		}
		ps.Series.Defaults = append(ps.Series.Defaults, plan.Const(t, st.defaults[i], nil))
	}
	return ps, true
}

// buildMakeSeries replays planMakeSeries from the node.
func buildMakeSeries(ps *plan.Stage, in schema, actx agg.Context) (stage, error) {
	sr := ps.Series
	if sr == nil || sr.Step == nil || len(sr.Defaults) != len(ps.Aggs) || len(ps.Schema) != len(ps.Keys)+len(ps.Aggs)+1 {
		return nil, errors.New("bad make-series layout")
	}
	axis, err := buildExpr(sr.Axis, in)
	if err != nil {
		return nil, err
	}
	st := &makeSeriesStage{axis: axis, axisType: axis.typ, intAxis: sr.Step.Type == vector.Int}
	if err := st.boundsFromPlan(sr); err != nil {
		return nil, err
	}
	if st.keys, err = buildExprs(ps.Keys, in); err != nil {
		return nil, err
	}
	for i, k := range st.keys {
		st.keyTypes = append(st.keyTypes, k.typ)
		st.sch = append(st.sch, colDef{ps.Schema[i].Name, k.typ})
	}
	if axis.typ == vector.DateTime {
		actx.BinSize = st.step
	}
	ctx := &actx
	for i := range ps.Aggs {
		ac, err := buildAggCall(&ps.Aggs[i], in, ctx)
		if err != nil {
			return nil, err
		}
		if len(ac.outs) != 1 {
			return nil, fmt.Errorf("%s has %d results", ac.fname, len(ac.outs))
		}
		st.aggs = append(st.aggs, ac)
		st.defaults = append(st.defaults, sr.Defaults[i].ConstValue())
		st.sch = append(st.sch, colDef{ps.Schema[len(st.sch)].Name, vector.Dynamic})
	}
	st.sch = append(st.sch, colDef{ps.Schema[len(st.sch)].Name, vector.Dynamic})
	return st, nil
}

// boundsFromPlan reads the step and bounds in the domain the node's
// step type says, and checks what bounds checked when planning.
func (st *makeSeriesStage) boundsFromPlan(sr *plan.Series) error {
	switch st.axisType {
	case vector.DateTime, vector.TimeSpan, vector.Int, vector.Float:
	default:
		return fmt.Errorf("axis of type %s", st.axisType)
	}
	read := func(e *plan.Expr, i **int64, f **float64) error {
		if e == nil {
			return nil
		}
		if e.Type != sr.Step.Type {
			return fmt.Errorf("a bound of type %s, the step %s", e.Type, sr.Step.Type)
		}
		if st.intAxis {
			v, _ := e.ConstValue().(int64)
			*i = &v
		} else {
			v, _ := e.ConstValue().(float64)
			*f = &v
		}
		return nil
	}
	var step *int64
	var fstep *float64
	if err := read(sr.Step, &step, &fstep); err != nil {
		return err
	}
	if st.intAxis {
		st.step = *step
	} else if sr.Step.Type == vector.Float {
		st.fstep = *fstep
	} else {
		return fmt.Errorf("step of type %s", sr.Step.Type)
	}
	if st.step <= 0 && !(st.fstep > 0 && !math.IsInf(st.fstep, 0)) {
		return errors.New("step not positive")
	}
	if err := read(sr.From, &st.ifrom, &st.from); err != nil {
		return err
	}
	if err := read(sr.To, &st.ito, &st.to); err != nil {
		return err
	}
	if n := st.fixedBins(); n > maxSeriesBins {
		return fmt.Errorf("%d bins per series", n)
	}
	return nil
}
