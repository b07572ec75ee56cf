package core

import (
	"fmt"
	"regexp"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// parse as a plan node: the matcher the planner made of the pattern
// travels, not the pattern.

func (st *parseStage) toPlan() (*plan.Stage, bool) {
	if st.src.node == nil {
		return nil, false
	}
	pp := &plan.Parse{Regex: st.re.String(), Where: st.where, Relaxed: st.relaxed}
	for _, c := range st.caps {
		pp.Caps = append(pp.Caps, plan.ParseCapture{Name: c.name, Type: c.typ, Group: c.group, Slot: c.slot})
	}
	for _, it := range st.fast {
		pp.Fast = append(pp.Fast, plan.ParseItem{Const: it.konst, Star: it.star, Cap: it.cap, Type: it.typ})
	}
	return &plan.Stage{Kind: plan.SParse, Schema: schemaPlan(st.sch), Pred: st.src.node, Parse: pp}, true
}

// buildParse replays planParse from the node.
func buildParse(ps *plan.Stage, in schema) (stage, error) {
	pp := ps.Parse
	if pp == nil {
		return nil, fmt.Errorf("parse stage without its matcher")
	}
	src, err := buildExpr(ps.Pred, in)
	if err != nil {
		return nil, err
	}
	if src.typ != vector.String {
		return nil, fmt.Errorf("parse source is %s, not string", src.typ)
	}
	st := &parseStage{in: in, sch: append(schema(nil), in...), src: src, where: pp.Where, relaxed: pp.Relaxed}
	if st.re, err = regexp.Compile(pp.Regex); err != nil {
		return nil, err
	}
	for _, pc := range pp.Caps {
		c := parseCapture{name: pc.Name, typ: pc.Type, group: pc.Group, slot: pc.Slot}
		if c.group < 0 || c.group > st.re.NumSubexp() {
			return nil, fmt.Errorf("capture %s reads group %d of %d", c.name, c.group, st.re.NumSubexp())
		}
		if c.typ != vector.String {
			if c.conv = fn.Lookup(convName[c.typ]); c.conv == nil {
				return nil, fmt.Errorf("%w parse capture of type %s", plan.ErrUnsupported, c.typ)
			}
		}
		switch {
		case c.slot == len(st.sch):
			st.sch = append(st.sch, colDef{c.name, c.typ})
		case c.slot >= 0 && c.slot < len(st.sch):
			st.sch[c.slot].Type = c.typ
		default:
			return nil, fmt.Errorf("capture %s writes column %d of %d", c.name, c.slot, len(st.sch))
		}
		st.caps = append(st.caps, c)
	}
	for _, it := range pp.Fast {
		if it.Cap >= len(st.caps) {
			return nil, fmt.Errorf("scanner step reads capture %d of %d", it.Cap, len(st.caps))
		}
		st.fast = append(st.fast, fastItem{konst: it.Const, star: it.Star, cap: it.Cap, typ: it.Type})
	}
	return st, nil
}
