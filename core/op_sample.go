package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planSample(in exec.Schema, op *parser.SampleOp) (*step, error) {
	e, err := p.compilerFor(in).compile(op.Fraction)
	if err != nil {
		return nil, err
	}
	if !e.IsConst() || !e.Typ.IsNumeric() || e.ConstValue() == nil {
		return nil, semErr(op.Fraction, "sample takes a constant proportion between 0 and 1, such as sample 0.1")
	}
	f, _ := fn.DynFloat(e.ConstValue())
	if !(f > 0 && f < 1) {
		return nil, semErr(op.Fraction, "sample takes a proportion between 0 and 1 (exclusive), got %s; use take for a number of rows", exec.ValueString(e.ConstValue()))
	}
	if p.noCache == "" {
		p.noCache = "sample draws a new selection each run"
	}
	return one(plan.Stage{Kind: plan.SSample, P: plan.Const(vector.Float, f, nil), Seed: p.fc.Rand}, in), nil
}
