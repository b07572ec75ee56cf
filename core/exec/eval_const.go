package exec

import (
	"fmt"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// BuildExpr builds the evaluator of an expression node over input schema
// in: the one way from a plan node to something that runs.
func BuildExpr(node *plan.Expr, in Schema) (*Expr, error) { return buildExpr(node, in) }

// EvalConst evaluates an expression node that reads no column, once,
// over one row. The planner resolves and types expressions into nodes
// without building their evaluators, and asks this for the value of a
// constant one (folding, print).
func EvalConst(x *Ctx, node *plan.Expr) (*vector.Vector, error) {
	e, err := buildExpr(node, nil)
	if err != nil {
		return nil, err
	}
	return e.Run(x, &Batch{Batch: vector.Batch{N: 1}})
}

// Rebuild is a stage as a run has it: built again from the node of st
// (over input schema in), as every run builds its operators. A stage the
// planner made holds nodes and no evaluators, so it is rebuilt before it
// runs.
func Rebuild(st Stage, in Schema, actx agg.Context) (Stage, error) {
	p, ok := st.(planned)
	if !ok {
		return nil, fmt.Errorf("plan: %T has no node", st)
	}
	ps, ok := p.toPlan()
	if !ok {
		return nil, fmt.Errorf("plan: %T has no node", st)
	}
	return buildStage(ps, in, actx)
}
