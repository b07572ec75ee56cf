package core

import (
	"fmt"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
)

func (p *planner) planExtend(in exec.Schema, op *parser.ExtendOp) (*step, error) {
	sch := append(exec.Schema(nil), in...)
	st := plan.Stage{Kind: plan.SExtend, Valid: op.Valid}
	for _, ne := range op.Cols {
		// Each expression sees the columns added before it.
		c := p.compilerFor(sch)
		e, err := c.compile(ne.Expr)
		if err != nil {
			return nil, err
		}
		name := ne.Name
		if name == "" {
			name = e.Name
			if name == "" || e.Col < 0 {
				name = nextColumnName(sch)
			}
		}
		slot := sch.Index(name)
		if slot < 0 {
			slot = len(sch)
			sch = append(sch, exec.ColDef{Name: name, Type: e.Typ})
		} else if op.Valid && sch[slot].Type != e.Typ {
			if e, err = castExpr(p.fc, e, sch[slot].Type); err != nil {
				return nil, err
			}
		} else {
			sch[slot].Type = e.Typ
		}
		st.Exprs = append(st.Exprs, e.Node)
		st.Slots = append(st.Slots, slot)
	}
	st.Schema = fields(sch)
	return one(st, sch), nil
}

// nextColumnName returns Column1, Column2, ... not yet in s (KQL's names
// for unnamed computed columns).
func nextColumnName(s exec.Schema) string {
	for i := 1; ; i++ {
		n := fmt.Sprintf("Column%d", i)
		if s.Index(n) < 0 {
			return n
		}
	}
}
