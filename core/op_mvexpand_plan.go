package core

import (
	"fmt"

	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// mv-expand as a plan node.

func (st *mvExpandStage) toPlan() (*plan.Stage, bool) {
	ps := &plan.Stage{Kind: plan.SMvExpand, Schema: schemaPlan(st.sch),
		Expand: &plan.Expand{IdxSlot: st.idxSlot, Limit: st.limit, BagArray: st.bagArray}}
	for _, c := range st.cols {
		if c.e.node == nil {
			return nil, false
		}
		ps.Exprs = append(ps.Exprs, c.e.node)
		ps.Slots = append(ps.Slots, c.slot)
		ps.Expand.Types = append(ps.Expand.Types, c.typ)
		ps.Expand.Cast = append(ps.Expand.Cast, c.cast)
	}
	return ps, true
}

// buildMvExpand replays planMvExpand from the node.
func buildMvExpand(ps *plan.Stage, in schema) (stage, error) {
	ex := ps.Expand
	if ex == nil || len(ex.Types) != len(ps.Exprs) || len(ex.Cast) != len(ps.Exprs) || len(ps.Slots) != len(ps.Exprs) {
		return nil, fmt.Errorf("mv-expand columns do not line up")
	}
	st := &mvExpandStage{in: in, sch: append(schema(nil), in...), idxSlot: -1, limit: ex.Limit, bagArray: ex.BagArray}
	for i, n := range ps.Exprs {
		e, err := buildExpr(n, in)
		if err != nil {
			return nil, err
		}
		col := mvCol{e: e, typ: ex.Types[i], cast: ex.Cast[i], slot: ps.Slots[i]}
		if !col.cast && col.typ != e.typ && !(e.typ == vector.Null && col.typ == vector.Dynamic) {
			return nil, fmt.Errorf("mv-expand column %d is %s, the plan says %s", i, e.typ, col.typ)
		}
		if err := st.place(col.slot, col.typ, ps.Schema); err != nil {
			return nil, err
		}
		st.cols = append(st.cols, col)
	}
	if ex.IdxSlot >= 0 {
		if err := st.place(ex.IdxSlot, vector.Int, ps.Schema); err != nil {
			return nil, err
		}
		st.idxSlot = ex.IdxSlot
	}
	return st, nil
}

// place makes output column slot of type t: a new one, named as the
// plan's schema names it, or an input column it replaces.
func (st *mvExpandStage) place(slot int, t vector.Type, names []plan.Field) error {
	switch {
	case slot == len(st.sch) && slot < len(names):
		st.sch = append(st.sch, colDef{names[slot].Name, t})
	case slot >= 0 && slot < len(st.sch):
		st.sch[slot].Type = t
	default:
		return fmt.Errorf("column %d of %d", slot, len(st.sch))
	}
	return nil
}
