package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planTop(in exec.Schema, op *parser.TopOp) (exec.Stage, error) {
	n, err := p.constInt(op.N, "top")
	if err != nil {
		return nil, err
	}
	ks, err := p.planSortKeys(in, []*parser.SortKey{op.Key})
	if err != nil {
		return nil, err
	}
	return &exec.TopStage{In: in, N: n, Keys: ks}, nil
}

// constInt evaluates a constant non-negative integer operand (take N, top N).
func (p *planner) constInt(e parser.Expr, what string) (int64, error) {
	ce, err := p.compilerFor(nil).compile(e)
	if err != nil {
		return 0, err
	}
	if !ce.IsConst() || ce.Cnst.IsNull(0) {
		return 0, semErr(e, "the row count of %s must be a constant", what)
	}
	v := exec.ConvertValue(ce.ConstValue(), vector.Int)
	n, ok := v.(int64)
	if !ok || n < 0 {
		return 0, semErr(e, "the row count of %s must be a non-negative integer", what)
	}
	return n, nil
}

// sortThenTake turns `sort by k | take N` into `top N by k`: the same
// rows in the same order (both sorts are stable), but each worker keeps
// only its best N instead of every row being collected and sorted. It
// returns nil when st does not follow a sort.
func sortThenTake(pl *exec.Pipeline, st exec.Stage) *exec.TopStage {
	take, ok := st.(*exec.TakeStage)
	if !ok || len(pl.Stages) == 0 {
		return nil
	}
	srt, ok := pl.Stages[len(pl.Stages)-1].(*exec.SortStage)
	if !ok {
		return nil
	}
	return &exec.TopStage{In: srt.In, N: take.N, Keys: srt.Keys, SortTake: true}
}

func (p *planner) planTake(in exec.Schema, n parser.Expr) (exec.Stage, error) {
	v, err := p.constInt(n, "take")
	if err != nil {
		return nil, err
	}
	return &exec.TakeStage{In: in, N: v}, nil
}
