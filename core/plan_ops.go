package core

import (
	"fmt"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// planOp plans one operator over input schema in.
func (p *planner) planOp(in exec.Schema, op parser.Operator) (*step, error) {
	switch op := op.(type) {
	case *parser.WhereOp:
		return p.planWhere(in, op)
	case *parser.ExtendOp:
		return p.planExtend(in, op)
	case *parser.ProjectOp:
		return p.planProject(in, op)
	case *parser.ProjectAwayOp:
		return planProjectAway(in, op)
	case *parser.ProjectKeepOp:
		return planProjectKeep(in, op)
	case *parser.ProjectRenameOp:
		return planProjectRename(in, op)
	case *parser.ProjectReorderOp:
		return planProjectReorder(in, op)
	case *parser.SummarizeOp:
		return p.planSummarizeExprs(in, op)
	case *parser.SortOp:
		return p.planSort(in, op.Keys)
	case *parser.TopOp:
		return p.planTop(in, op)
	case *parser.TakeOp:
		return p.planTake(in, op.N)
	case *parser.CountOp:
		return one(plan.Stage{Kind: plan.SCount, Schema: countSchema}, exec.Schema(countSchema)), nil
	case *parser.DistinctOp:
		return p.planDistinct(in, op)
	case *parser.GetSchemaOp:
		return one(plan.Stage{Kind: plan.SGetSchema, Schema: getSchemaSchema}, exec.Schema(getSchemaSchema)), nil
	case *parser.UnionOp:
		return p.planUnionOp(in, op)
	}
	if st, err := p.planMoreOps(in, op); st != nil || err != nil {
		return st, err
	}
	return nil, semErr(op, "operator %s is not supported yet", opName(op))
}

// The fixed output schemas of count and getschema.
var (
	countSchema     = []plan.Field{{Name: "count", Type: vector.Int}}
	getSchemaSchema = []plan.Field{{Name: "ColumnName", Type: vector.String}, {Name: "ColumnOrdinal", Type: vector.Int},
		{Name: "DataType", Type: vector.String}, {Name: "ColumnType", Type: vector.String}}
)

// opName names an operator for error messages.
func opName(op parser.Operator) string {
	return fmt.Sprintf("%T", op)[len("*parser."):]
}

// virtualFields prepends the request's virtual fields of the scanned
// datasets as an extend.
func (p *planner) virtualFields(datasets []string, in exec.Schema) (*step, error) {
	var cols []*parser.NamedExpr
	for _, ds := range datasets {
		for _, vf := range p.req.VirtualFields[ds] {
			e, err := parser.ParseExpr(vf.Expression)
			if err != nil {
				return nil, fmt.Errorf("virtual field %s of %s: %w", vf.Name, ds, err)
			}
			cols = append(cols, &parser.NamedExpr{Name: vf.Name, Expr: e})
		}
	}
	if len(cols) == 0 {
		return nil, nil
	}
	return p.planExtend(in, &parser.ExtendOp{Cols: cols})
}
