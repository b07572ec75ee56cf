package core

import (
	"regexp"
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// planParseKv plans parse-kv's options (a regex checked here, carried as
// its text) and each key's output column.
func (p *planner) planParseKv(in exec.Schema, op *parser.ParseKvOp) (*step, error) {
	c := p.compilerFor(in)
	src, err := c.compile(op.Expr)
	if err != nil {
		return nil, err
	}
	if src.Typ != vector.String {
		if src, err = castExpr(p.fc, src, vector.String); err != nil {
			return nil, err
		}
	}
	kv := &plan.ParseKv{}
	if err := parseKvOptions(kv, c, op); err != nil {
		return nil, err
	}
	sch := append(exec.Schema(nil), in...)
	seen := map[string]bool{}
	for _, k := range op.Keys {
		if seen[k.Name] {
			return nil, semErr(k, "parse-kv lists key %q twice", k.Name)
		}
		seen[k.Name] = true
		key := plan.KvKey{Name: k.Name, Type: k.Type}
		if key.Type != vector.String && fn.Lookup(exec.ConvName[key.Type]) == nil {
			return nil, semErr(k, "parse-kv cannot extract a value of type %s", key.Type)
		}
		key.Slot = sch.Index(key.Name)
		if key.Slot < 0 {
			key.Slot = len(sch)
			sch = append(sch, exec.ColDef{Name: key.Name, Type: key.Type})
		} else {
			sch[key.Slot].Type = key.Type
		}
		kv.Keys = append(kv.Keys, key)
	}
	return one(plan.Stage{Kind: plan.SParseKv, Schema: fields(sch), Pred: src.Node, Kv: kv}, sch), nil
}

// parseKvOptions reads the with (...) list.
func parseKvOptions(st *plan.ParseKv, c *compiler, op *parser.ParseKvOp) error {
	for _, o := range op.Options {
		v, err := c.compile(o.Expr)
		if err != nil {
			return err
		}
		if !v.IsConst() || v.ConstValue() == nil {
			return semErr(o.Expr, "parse-kv option %s must be a constant", o.Name)
		}
		val := v.ConstValue()
		s, isStr := val.(string)
		switch strings.ToLower(o.Name) {
		case "pair_delimiter", "kv_delimiter", "quote", "escape", "regex":
			if !isStr || s == "" {
				return semErr(o.Expr, "parse-kv option %s must be a non-empty string", o.Name)
			}
		case "greedy":
			b, ok := val.(bool)
			if !ok {
				return semErr(o.Expr, "parse-kv option greedy must be true or false")
			}
			st.Greedy = b
			continue
		default:
			return semErr(o, "unknown parse-kv option %q (want pair_delimiter, kv_delimiter, quote, escape, greedy or regex)", o.Name)
		}
		if err := parseKvOption(st, o, strings.ToLower(o.Name), s); err != nil {
			return err
		}
	}
	if (st.Pairs == "") != (st.Kv == "") {
		return semErr(op, "parse-kv needs both pair_delimiter and kv_delimiter, or neither")
	}
	if st.Regex != "" && st.Pairs != "" {
		return semErr(op, "parse-kv takes either delimiters or a regex, not both")
	}
	return nil
}

// parseKvOption records one string option.
func parseKvOption(st *plan.ParseKv, o *parser.NamedExpr, name, s string) error {
	switch name {
	case "pair_delimiter":
		st.Pairs = s
	case "kv_delimiter":
		st.Kv = s
	case "quote":
		r := []rune(s)
		switch len(r) {
		case 1:
			st.Quotes = append(st.Quotes, string([]rune{r[0], r[0]}))
		case 2:
			st.Quotes = append(st.Quotes, string([]rune{r[0], r[1]}))
		default:
			return semErr(o.Expr, "parse-kv quote must be one or two characters")
		}
	case "escape":
		if len([]rune(s)) != 1 {
			return semErr(o.Expr, "parse-kv escape must be one character")
		}
		st.Escapes += s
	case "regex":
		re, err := regexp.Compile(s)
		if err != nil {
			return semErr(o.Expr, "parse-kv regex is not valid: %v", err)
		}
		if re.NumSubexp() != 2 {
			return semErr(o.Expr, "parse-kv regex must have exactly two groups (key and value), it has %d", re.NumSubexp())
		}
		st.Regex = re.String()
	}
	return nil
}
