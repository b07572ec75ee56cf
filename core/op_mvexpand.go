package core

import (
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planMvExpand(in exec.Schema, op *parser.MvExpandOp) (exec.Stage, error) {
	st := &exec.MvExpandStage{In: in, Sch: append(exec.Schema(nil), in...), IdxSlot: -1, BagArray: strings.EqualFold(op.Kind, "array")}
	c := p.compilerFor(in)
	for _, mc := range op.Cols {
		e, err := c.compile(mc.Expr)
		if err != nil {
			return nil, err
		}
		name := mvColumnName(mc, e, st.Sch)
		col := exec.MvCol{E: e, Typ: e.Typ, Cast: mc.HasTo}
		if mc.HasTo {
			col.Typ = mc.ToType
		}
		if col.Typ == vector.Null {
			col.Typ = vector.Dynamic
		}
		col.Slot = st.Sch.Index(name)
		if col.Slot < 0 {
			col.Slot = len(st.Sch)
			st.Sch = append(st.Sch, exec.ColDef{Name: name, Type: col.Typ})
		} else {
			st.Sch[col.Slot].Type = col.Typ
		}
		st.Cols = append(st.Cols, col)
	}
	if op.ItemIndex != "" {
		st.IdxSlot = st.Sch.Index(op.ItemIndex)
		if st.IdxSlot < 0 {
			st.IdxSlot = len(st.Sch)
			st.Sch = append(st.Sch, exec.ColDef{Name: op.ItemIndex, Type: vector.Int})
		} else {
			st.Sch[st.IdxSlot].Type = vector.Int
		}
	}
	if op.Limit != nil {
		n, err := constLong(c, op.Limit, "mv-expand limit")
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, semErr(op.Limit, "mv-expand limit must not be negative, got %d", n)
		}
		st.Limit = n
	}
	return st, nil
}

// mvColumnName is the output column of one expanded expression: the
// alias, the column it reads, or the dotted path with '_' for '.'.
func mvColumnName(mc *parser.MvExpandCol, e *exec.Expr, s exec.Schema) string {
	switch {
	case mc.Name != "":
		return mc.Name
	case e.Col >= 0:
		return e.Name
	}
	if n, ok := dottedName(mc.Expr); ok {
		return strings.ReplaceAll(n, ".", "_")
	}
	return nextColumnName(s)
}

// constLong compiles a constant integer argument of an operator.
func constLong(c *compiler, e parser.Expr, what string) (int64, error) {
	v, err := c.compile(e)
	if err != nil {
		return 0, err
	}
	if !v.IsConst() || v.Typ != vector.Int || v.Cnst.IsNull(0) {
		return 0, semErr(e, "%s must be a constant long", what)
	}
	return v.Cnst.Int(0), nil
}
