package core

import (
	"fmt"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

func (p *planner) planExtend(in exec.Schema, op *parser.ExtendOp) (exec.Stage, error) {
	st := &exec.ExtendStage{In: in, Sch: append(exec.Schema(nil), in...), Valid: op.Valid}
	for _, ne := range op.Cols {
		// Each expression sees the columns added before it.
		c := p.compilerFor(st.Sch)
		e, err := c.compile(ne.Expr)
		if err != nil {
			return nil, err
		}
		name := ne.Name
		if name == "" {
			name = e.Name
			if name == "" || e.Col < 0 {
				name = nextColumnName(st.Sch)
			}
		}
		slot := st.Sch.Index(name)
		if slot < 0 {
			slot = len(st.Sch)
			st.Sch = append(st.Sch, exec.ColDef{Name: name, Type: e.Typ})
		} else if op.Valid && st.Sch[slot].Type != e.Typ {
			e = exec.CastExpr(e, st.Sch[slot].Type)
		} else {
			st.Sch[slot].Type = e.Typ
		}
		st.Exprs = append(st.Exprs, e)
		st.Slots = append(st.Slots, slot)
	}
	return st, nil
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
