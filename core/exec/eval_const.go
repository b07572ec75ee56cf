package exec

import (
	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// BuildExpr builds the evaluator of an expression node over input schema
// in: the one way from a plan node to something that runs.
func BuildExpr(node *plan.Expr, in Schema) (*Expr, error) { return buildExpr(node, in) }

// EvalConst evaluates an expression node that reads no column, once,
// over one row, with the query's function context fc (its clock, range,
// seed and memory charge) and nothing of a run. The planner resolves and
// types expressions into nodes without building their evaluators, and
// asks this for the value of a constant one (folding, print).
func EvalConst(fc *fn.Context, node *plan.Expr) (*vector.Vector, error) {
	e, err := buildExpr(node, nil)
	if err != nil {
		return nil, err
	}
	return e.Run(&Ctx{Fn: fc}, &Batch{Batch: vector.Batch{N: 1}})
}

// BuildStage builds the operator of one stage node over input schema
// in, as a run builds it (tests run single operators through it).
func BuildStage(ps *plan.Stage, in Schema, actx agg.Context) (Stage, error) {
	return buildStage(ps, in, actx)
}
