package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

func (p *planner) planDistinct(in exec.Schema, op *parser.DistinctOp) (exec.Stage, error) {
	st := &exec.DistinctStage{}
	c := p.compilerFor(in)
	for _, ce := range op.Cols {
		if _, star := ce.(*parser.StarExpr); star {
			for i, col := range in {
				st.Exprs = append(st.Exprs, exec.ColExpr(i, col, ce.Span()))
				st.Sch = append(st.Sch, col)
			}
			continue
		}
		e, err := c.compile(ce)
		if err != nil {
			return nil, err
		}
		name := e.Name
		if name == "" || e.Col < 0 {
			name = byName(ce, e, st.Sch)
		}
		st.Exprs = append(st.Exprs, e)
		st.Sch = append(st.Sch, exec.ColDef{Name: name, Type: e.Typ})
	}
	return st, nil
}
