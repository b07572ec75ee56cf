package exec

import (
	"fmt"

	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// mv-expand as a plan node.

func (st *mvExpandStage) toPlan() (*plan.Stage, bool) {
	ps := &plan.Stage{Kind: plan.SMvExpand, Schema: schemaPlan(st.Sch),
		Expand: &plan.Expand{IdxSlot: st.IdxSlot, Limit: st.Limit, BagArray: st.BagArray}}
	for _, c := range st.Cols {
		if c.E.Node == nil {
			return nil, false
		}
		ps.Exprs = append(ps.Exprs, c.E.Node)
		ps.Slots = append(ps.Slots, c.Slot)
		ps.Expand.Types = append(ps.Expand.Types, c.Typ)
		ps.Expand.Cast = append(ps.Expand.Cast, c.Cast)
	}
	return ps, true
}

// buildMvExpand replays planMvExpand from the node.
func buildMvExpand(ps *plan.Stage, in Schema) (Stage, error) {
	ex := ps.Expand
	if ex == nil || len(ex.Types) != len(ps.Exprs) || len(ex.Cast) != len(ps.Exprs) || len(ps.Slots) != len(ps.Exprs) {
		return nil, fmt.Errorf("mv-expand columns do not line up")
	}
	st := &mvExpandStage{In: in, Sch: append(Schema(nil), in...), IdxSlot: -1, Limit: ex.Limit, BagArray: ex.BagArray}
	for i, n := range ps.Exprs {
		e, err := buildExpr(n, in)
		if err != nil {
			return nil, err
		}
		col := mvCol{E: e, Typ: ex.Types[i], Cast: ex.Cast[i], Slot: ps.Slots[i]}
		if !col.Cast && col.Typ != e.Typ && !(e.Typ == vector.Null && col.Typ == vector.Dynamic) {
			return nil, fmt.Errorf("mv-expand column %d is %s, the plan says %s", i, e.Typ, col.Typ)
		}
		if err := st.place(col.Slot, col.Typ, ps.Schema); err != nil {
			return nil, err
		}
		st.Cols = append(st.Cols, col)
	}
	if ex.IdxSlot >= 0 {
		if err := st.place(ex.IdxSlot, vector.Int, ps.Schema); err != nil {
			return nil, err
		}
		st.IdxSlot = ex.IdxSlot
	}
	return st, nil
}

// place makes output column slot of type t: a new one, named as the
// plan's schema names it, or an input column it replaces.
func (st *mvExpandStage) place(slot int, t vector.Type, names []plan.Field) error {
	switch {
	case slot == len(st.Sch) && slot < len(names):
		st.Sch = append(st.Sch, ColDef{Name: names[slot].Name, Type: t})
	case slot >= 0 && slot < len(st.Sch):
		st.Sch[slot].Type = t
	default:
		return fmt.Errorf("column %d of %d", slot, len(st.Sch))
	}
	return nil
}
