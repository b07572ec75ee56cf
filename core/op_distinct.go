package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
)

func (p *planner) planDistinct(in exec.Schema, op *parser.DistinctOp) (*step, error) {
	var sch exec.Schema
	st := plan.Stage{Kind: plan.SDistinct}
	c := p.compilerFor(in)
	for _, ce := range op.Cols {
		if _, star := ce.(*parser.StarExpr); star {
			for i, col := range in {
				st.Exprs = append(st.Exprs, colExpr(i, col, ce.Span()).Node)
				sch = append(sch, col)
			}
			continue
		}
		e, err := c.compile(ce)
		if err != nil {
			return nil, err
		}
		name := e.Name
		if name == "" || e.Col < 0 {
			name = byName(ce, e, sch)
		}
		st.Exprs = append(st.Exprs, e.Node)
		sch = append(sch, exec.ColDef{Name: name, Type: e.Typ})
	}
	st.Schema = fields(sch)
	return one(st, sch), nil
}
