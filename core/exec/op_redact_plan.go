package exec

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
	r := &plan.Redact{Token: st.Token, Hash: st.Hash, Groups: st.Groups}
	for _, re := range st.Res {
		r.Regexes = append(r.Regexes, re.String())
	}
	return &plan.Stage{Kind: plan.SRedact, Idx: st.Cols, Redact: r}, true
}

func buildRedact(ps *plan.Stage, in Schema) (Stage, error) {
	r := ps.Redact
	if r == nil || r.Token == "" || len(r.Regexes) == 0 {
		return nil, errors.New("no patterns or token")
	}
	st := &redactStage{In: in, Cols: ps.Idx, Token: r.Token, Hash: r.Hash, Groups: r.Groups}
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
		st.Res = append(st.Res, re)
	}
	return st, nil
}

func (st *parseKvStage) toPlan() (*plan.Stage, bool) {
	if st.Src.Node == nil {
		return nil, false
	}
	kv := &plan.ParseKv{Pairs: st.Pairs, Kv: st.Kv, Escapes: st.Escapes, Greedy: st.Greedy}
	for _, q := range st.Quotes {
		kv.Quotes = append(kv.Quotes, string([]rune{q.Open, q.Close}))
	}
	if st.Re != nil {
		kv.Regex = st.Re.String()
	}
	for _, k := range st.Keys {
		kv.Keys = append(kv.Keys, plan.KvKey{Name: k.Name, Type: k.Typ, Slot: k.Slot})
	}
	return &plan.Stage{Kind: plan.SParseKv, Schema: schemaPlan(st.Sch), Pred: st.Src.Node, Kv: kv}, true
}

// buildParseKv replays planParseKv: each key writes its slot, a new
// column or one of the input's, retyped.
func buildParseKv(ps *plan.Stage, in Schema) (Stage, error) {
	kv := ps.Kv
	if kv == nil {
		return nil, errors.New("no options")
	}
	src, err := buildExpr(ps.Pred, in)
	if err != nil {
		return nil, err
	}
	if src.Typ != vector.String {
		return nil, fmt.Errorf("text of type %s", src.Typ)
	}
	st := &parseKvStage{In: in, Sch: append(Schema(nil), in...), Src: src, Index: map[string]int{},
		Pairs: kv.Pairs, Kv: kv.Kv, Escapes: kv.Escapes, Greedy: kv.Greedy}
	for _, q := range kv.Quotes {
		r := []rune(q)
		if len(r) != 2 {
			return nil, fmt.Errorf("quote pair %q", q)
		}
		st.Quotes = append(st.Quotes, quotePair{r[0], r[1]})
	}
	if kv.Regex != "" {
		if st.Re, err = regexp.Compile(kv.Regex); err != nil {
			return nil, err
		}
	}
	for _, k := range kv.Keys {
		key := kvKey{Name: k.Name, Typ: k.Type, Slot: k.Slot}
		if key.Typ != vector.String {
			if key.Conv = fn.Lookup(ConvName[key.Typ]); key.Conv == nil {
				return nil, fmt.Errorf("%w conversion to %s", plan.ErrUnsupported, key.Typ)
			}
		}
		switch {
		case key.Slot == len(st.Sch):
			st.Sch = append(st.Sch, ColDef{Name: key.Name, Type: key.Typ})
		case key.Slot >= 0 && key.Slot < len(st.Sch) && st.Sch[key.Slot].Name == key.Name:
			st.Sch[key.Slot].Type = key.Typ
		default:
			return nil, fmt.Errorf("key %s writes column %d of %d", key.Name, key.Slot, len(st.Sch))
		}
		st.Index[k.Name] = len(st.Keys)
		st.Keys = append(st.Keys, key)
	}
	return st, nil
}
