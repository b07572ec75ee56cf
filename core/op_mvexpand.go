package core

import (
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planMvExpand(in exec.Schema, op *parser.MvExpandOp) (*step, error) {
	sch := append(exec.Schema(nil), in...)
	ex := &plan.Expand{IdxSlot: -1, BagArray: strings.EqualFold(op.Kind, "array")}
	st := plan.Stage{Kind: plan.SMvExpand, Expand: ex}
	c := p.compilerFor(in)
	for _, mc := range op.Cols {
		e, err := c.compile(mc.Expr)
		if err != nil {
			return nil, err
		}
		name := mvColumnName(mc, e, sch)
		typ := e.Typ
		if mc.HasTo {
			typ = mc.ToType
		}
		if typ == vector.Null {
			typ = vector.Dynamic
		}
		slot := sch.Index(name)
		if slot < 0 {
			slot = len(sch)
			sch = append(sch, exec.ColDef{Name: name, Type: typ})
		} else {
			sch[slot].Type = typ
		}
		st.Exprs, st.Slots = append(st.Exprs, e.Node), append(st.Slots, slot)
		ex.Types, ex.Cast = append(ex.Types, typ), append(ex.Cast, mc.HasTo)
	}
	if op.ItemIndex != "" {
		ex.IdxSlot = sch.Index(op.ItemIndex)
		if ex.IdxSlot < 0 {
			ex.IdxSlot = len(sch)
			sch = append(sch, exec.ColDef{Name: op.ItemIndex, Type: vector.Int})
		} else {
			sch[ex.IdxSlot].Type = vector.Int
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
		ex.Limit = n
	}
	st.Schema = fields(sch)
	return one(st, sch), nil
}

// mvColumnName is the output column of one expanded expression: the
// alias, the column it reads, or the dotted path with '_' for '.'.
func mvColumnName(mc *parser.MvExpandCol, e *typed, s exec.Schema) string {
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
	if !v.IsConst() || v.Typ != vector.Int || v.ConstValue() == nil {
		return 0, semErr(e, "%s must be a constant long", what)
	}
	return v.constInt(), nil
}
