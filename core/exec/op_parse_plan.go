package exec

import (
	"fmt"
	"regexp"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// parse as a plan node: the matcher the planner made of the pattern
// travels, not the pattern.

func (st *ParseStage) toPlan() (*plan.Stage, bool) {
	if st.Src.Node == nil {
		return nil, false
	}
	pp := &plan.Parse{Regex: st.Re.String(), Where: st.Where, Relaxed: st.Relaxed}
	for _, c := range st.Caps {
		pp.Caps = append(pp.Caps, plan.ParseCapture{Name: c.Name, Type: c.Typ, Group: c.Group, Slot: c.Slot})
	}
	for _, it := range st.Fast {
		pp.Fast = append(pp.Fast, plan.ParseItem{Const: it.Konst, Star: it.Star, Cap: it.Cap, Type: it.Typ})
	}
	return &plan.Stage{Kind: plan.SParse, Schema: schemaPlan(st.Sch), Pred: st.Src.Node, Parse: pp}, true
}

// buildParse replays planParse from the node.
func buildParse(ps *plan.Stage, in Schema) (Stage, error) {
	pp := ps.Parse
	if pp == nil {
		return nil, fmt.Errorf("parse stage without its matcher")
	}
	src, err := buildExpr(ps.Pred, in)
	if err != nil {
		return nil, err
	}
	if src.Typ != vector.String {
		return nil, fmt.Errorf("parse source is %s, not string", src.Typ)
	}
	st := &ParseStage{In: in, Sch: append(Schema(nil), in...), Src: src, Where: pp.Where, Relaxed: pp.Relaxed}
	if st.Re, err = regexp.Compile(pp.Regex); err != nil {
		return nil, err
	}
	for _, pc := range pp.Caps {
		c := parseCapture{Name: pc.Name, Typ: pc.Type, Group: pc.Group, Slot: pc.Slot}
		if c.Group < 0 || c.Group > st.Re.NumSubexp() {
			return nil, fmt.Errorf("capture %s reads group %d of %d", c.Name, c.Group, st.Re.NumSubexp())
		}
		if c.Typ != vector.String {
			if c.Conv = fn.Lookup(ConvName[c.Typ]); c.Conv == nil {
				return nil, fmt.Errorf("%w parse capture of type %s", plan.ErrUnsupported, c.Typ)
			}
		}
		switch {
		case c.Slot == len(st.Sch):
			st.Sch = append(st.Sch, ColDef{Name: c.Name, Type: c.Typ})
		case c.Slot >= 0 && c.Slot < len(st.Sch):
			st.Sch[c.Slot].Type = c.Typ
		default:
			return nil, fmt.Errorf("capture %s writes column %d of %d", c.Name, c.Slot, len(st.Sch))
		}
		st.Caps = append(st.Caps, c)
	}
	for _, it := range pp.Fast {
		if it.Cap >= len(st.Caps) {
			return nil, fmt.Errorf("scanner step reads capture %d of %d", it.Cap, len(st.Caps))
		}
		st.Fast = append(st.Fast, FastItem{Konst: it.Const, Star: it.Star, Cap: it.Cap, Typ: it.Type})
	}
	return st, nil
}
