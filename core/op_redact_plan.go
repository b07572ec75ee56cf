package core

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// redact and parse-kv as plan nodes: their options as the planner read
// them, regular expressions as their text (compiled again when built).

func (st *redactStage) toPlan() (*plan.Stage, bool) {
	r := &plan.Redact{Token: st.token, Hash: st.hash, Groups: st.groups}
	for _, re := range st.res {
		r.Regexes = append(r.Regexes, re.String())
	}
	return &plan.Stage{Kind: plan.SRedact, Idx: st.cols, Redact: r}, true
}

func buildRedact(ps *plan.Stage, in schema) (stage, error) {
	r := ps.Redact
	if r == nil || r.Token == "" || len(r.Regexes) == 0 {
		return nil, errors.New("no patterns or token")
	}
	st := &redactStage{in: in, cols: ps.Idx, token: r.Token, hash: r.Hash, groups: r.Groups}
	for _, c := range ps.Idx {
		if c < 0 || c >= len(in) || in[c].Type != vector.String {
			return nil, fmt.Errorf("column %d is not a string column of %d", c, len(in))
		}
	}
	for _, text := range r.Regexes {
		re, err := regexp.Compile(text)
		if err != nil {
			return nil, err
		}
		st.res = append(st.res, re)
	}
	return st, nil
}

func (st *parseKvStage) toPlan() (*plan.Stage, bool) {
	if st.src.node == nil {
		return nil, false
	}
	kv := &plan.ParseKv{Pairs: st.pairs, Kv: st.kv, Escapes: st.escapes, Greedy: st.greedy}
	for _, q := range st.quotes {
		kv.Quotes = append(kv.Quotes, string([]rune{q.open, q.close}))
	}
	if st.re != nil {
		kv.Regex = st.re.String()
	}
	for _, k := range st.keys {
		kv.Keys = append(kv.Keys, plan.KvKey{Name: k.name, Type: k.typ, Slot: k.slot})
	}
	return &plan.Stage{Kind: plan.SParseKv, Schema: schemaPlan(st.sch), Pred: st.src.node, Kv: kv}, true
}

// buildParseKv replays planParseKv: each key writes its slot, a new
// column or one of the input's, retyped.
func buildParseKv(ps *plan.Stage, in schema) (stage, error) {
	kv := ps.Kv
	if kv == nil {
		return nil, errors.New("no options")
	}
	src, err := buildExpr(ps.Pred, in)
	if err != nil {
		return nil, err
	}
	if src.typ != vector.String {
		return nil, fmt.Errorf("text of type %s", src.typ)
	}
	st := &parseKvStage{in: in, sch: append(schema(nil), in...), src: src, index: map[string]int{},
		pairs: kv.Pairs, kv: kv.Kv, escapes: kv.Escapes, greedy: kv.Greedy}
	for _, q := range kv.Quotes {
		r := []rune(q)
		if len(r) != 2 {
			return nil, fmt.Errorf("quote pair %q", q)
		}
		st.quotes = append(st.quotes, quotePair{r[0], r[1]})
	}
	if kv.Regex != "" {
		if st.re, err = regexp.Compile(kv.Regex); err != nil {
			return nil, err
		}
	}
	for _, k := range kv.Keys {
		key := kvKey{name: k.Name, typ: k.Type, slot: k.Slot}
		if key.typ != vector.String {
			if key.conv = fn.Lookup(convName[key.typ]); key.conv == nil {
				return nil, fmt.Errorf("%w conversion to %s", plan.ErrUnsupported, key.typ)
			}
		}
		switch {
		case key.slot == len(st.sch):
			st.sch = append(st.sch, colDef{key.name, key.typ})
		case key.slot >= 0 && key.slot < len(st.sch) && st.sch[key.slot].Name == key.name:
			st.sch[key.slot].Type = key.typ
		default:
			return nil, fmt.Errorf("key %s writes column %d of %d", key.name, key.slot, len(st.sch))
		}
		st.index[k.Name] = len(st.keys)
		st.keys = append(st.keys, key)
	}
	return st, nil
}
