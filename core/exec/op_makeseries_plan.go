package exec

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
	keys, ok := exprNodes(st.Keys)
	if !ok || st.Axis.Node == nil {
		return nil, false
	}
	ps := &plan.Stage{Kind: plan.SSeries, Schema: schemaPlan(st.Sch), Keys: keys,
		Series: &plan.Series{Axis: st.Axis.Node, Defaults: []*plan.Expr{}}}
	bound := func(i *int64, f *float64) *plan.Expr {
		switch {
		case st.IntAxis && i != nil:
			return plan.Const(vector.Int, *i, nil)
		case !st.IntAxis && f != nil:
			return plan.Const(vector.Float, *f, nil)
		}
		return nil
	}
	step := st.Step
	ps.Series.Step = bound(&step, &st.Fstep)
	ps.Series.From, ps.Series.To = bound(st.Ifrom, st.From), bound(st.Ito, st.To)
	for i, a := range st.Aggs {
		pa, ok := aggPlan(a)
		if !ok {
			return nil, false
		}
		ps.Aggs = append(ps.Aggs, pa)
		t := a.Outs[0]
		if st.Defaults[i] == nil {
			t = vector.Null
		}
		ps.Series.Defaults = append(ps.Series.Defaults, plan.Const(t, st.Defaults[i], nil))
	}
	return ps, true
}

// buildMakeSeries replays planMakeSeries from the node.
func buildMakeSeries(ps *plan.Stage, in Schema, actx agg.Context) (Stage, error) {
	sr := ps.Series
	if sr == nil || sr.Step == nil || len(sr.Defaults) != len(ps.Aggs) || len(ps.Schema) != len(ps.Keys)+len(ps.Aggs)+1 {
		return nil, errors.New("bad make-series layout")
	}
	axis, err := buildExpr(sr.Axis, in)
	if err != nil {
		return nil, err
	}
	st := &makeSeriesStage{Axis: axis, AxisType: axis.Typ, IntAxis: sr.Step.Type == vector.Int}
	if err := st.boundsFromPlan(sr); err != nil {
		return nil, err
	}
	if st.Keys, err = buildExprs(ps.Keys, in); err != nil {
		return nil, err
	}
	for i, k := range st.Keys {
		st.KeyTypes = append(st.KeyTypes, k.Typ)
		st.Sch = append(st.Sch, ColDef{Name: ps.Schema[i].Name, Type: k.Typ})
	}
	if axis.Typ == vector.DateTime {
		actx.BinSize = st.Step
	}
	ctx := &actx
	for i := range ps.Aggs {
		ac, err := buildAggCall(&ps.Aggs[i], in, ctx)
		if err != nil {
			return nil, err
		}
		if len(ac.Outs) != 1 {
			return nil, fmt.Errorf("%s has %d results", ac.Fname, len(ac.Outs))
		}
		st.Aggs = append(st.Aggs, ac)
		st.Defaults = append(st.Defaults, sr.Defaults[i].ConstValue())
		st.Sch = append(st.Sch, ColDef{Name: ps.Schema[len(st.Sch)].Name, Type: vector.Dynamic})
	}
	st.Sch = append(st.Sch, ColDef{Name: ps.Schema[len(st.Sch)].Name, Type: vector.Dynamic})
	return st, nil
}

// boundsFromPlan reads the step and bounds in the domain the node's
// step type says, and checks what bounds checked when planning.
func (st *makeSeriesStage) boundsFromPlan(sr *plan.Series) error {
	switch st.AxisType {
	case vector.DateTime, vector.TimeSpan, vector.Int, vector.Float:
	default:
		return fmt.Errorf("axis of type %s", st.AxisType)
	}
	read := func(e *plan.Expr, i **int64, f **float64) error {
		if e == nil {
			return nil
		}
		if e.Type != sr.Step.Type {
			return fmt.Errorf("a bound of type %s, the step %s", e.Type, sr.Step.Type)
		}
		if st.IntAxis {
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
	if st.IntAxis {
		st.Step = *step
	} else if sr.Step.Type == vector.Float {
		st.Fstep = *fstep
	} else {
		return fmt.Errorf("step of type %s", sr.Step.Type)
	}
	if st.Step <= 0 && !(st.Fstep > 0 && !math.IsInf(st.Fstep, 0)) {
		return errors.New("step not positive")
	}
	if err := read(sr.From, &st.Ifrom, &st.From); err != nil {
		return err
	}
	if err := read(sr.To, &st.Ito, &st.To); err != nil {
		return err
	}
	if n := st.FixedBins(); n > MaxSeriesBins {
		return fmt.Errorf("%d bins per series", n)
	}
	return nil
}
