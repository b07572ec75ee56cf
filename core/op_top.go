package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planTop(in exec.Schema, op *parser.TopOp) (*step, error) {
	n, err := p.constInt(op.N, "top")
	if err != nil {
		return nil, err
	}
	ks, err := p.planSortKeys(in, []*parser.SortKey{op.Key})
	if err != nil {
		return nil, err
	}
	return one(plan.Stage{Kind: plan.STop, N: n, Order: ks}, in), nil
}

// constInt evaluates a constant non-negative integer operand (take N, top N).
func (p *planner) constInt(e parser.Expr, what string) (int64, error) {
	ce, err := p.compilerFor(nil).compile(e)
	if err != nil {
		return 0, err
	}
	if !ce.IsConst() || ce.ConstValue() == nil {
		return 0, semErr(e, "the row count of %s must be a constant", what)
	}
	v := exec.ConvertValue(ce.ConstValue(), vector.Int)
	n, ok := v.(int64)
	if !ok || n < 0 {
		return 0, semErr(e, "the row count of %s must be a non-negative integer", what)
	}
	return n, nil
}

func (p *planner) planTake(in exec.Schema, n parser.Expr) (*step, error) {
	v, err := p.constInt(n, "take")
	if err != nil {
		return nil, err
	}
	return one(plan.Stage{Kind: plan.STake, N: v}, in), nil
}
