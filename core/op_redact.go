package core

import (
	"regexp"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// planRedact plans redact's options, its regular expressions (checked
// here, carried as their text) and the columns it rewrites.
func (p *planner) planRedact(in exec.Schema, op *parser.RedactOp) (*step, error) {
	c := p.compilerFor(in)
	st := &plan.Stage{Kind: plan.SRedact, Redact: &plan.Redact{Token: "*"}}
	if op.ReplaceToken != nil {
		v, err := constOption(c, op.ReplaceToken, "replaceToken", vector.String)
		if err != nil {
			return nil, err
		}
		if st.Redact.Token = v.(string); st.Redact.Token == "" {
			return nil, semErr(op.ReplaceToken, "redact replaceToken must not be empty")
		}
	}
	for _, o := range []struct {
		e    parser.Expr
		name string
		dst  *bool
	}{{op.ReplaceHash, "replaceHash", &st.Redact.Hash}, {op.RedactGroups, "redactGroups", &st.Redact.Groups}} {
		if o.e == nil {
			continue
		}
		v, err := constOption(c, o.e, o.name, vector.Bool)
		if err != nil {
			return nil, err
		}
		*o.dst = v.(bool)
	}
	if err := redactPatterns(st, c, op); err != nil {
		return nil, err
	}
	if err := redactFields(st, c, in, op); err != nil {
		return nil, err
	}
	return one(*st, in), nil
}

// constOption compiles an operator option that must be a constant of type t.
func constOption(c *compiler, e parser.Expr, name string, t vector.Type) (any, error) {
	v, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	if !v.IsConst() || v.Typ != t || v.ConstValue() == nil {
		return nil, semErr(e, "%s must be a constant %s", name, t)
	}
	return v.ConstValue(), nil
}

// redactPatterns compiles the regular expressions: string constants, or a
// dynamic array or bag of them.
func redactPatterns(st *plan.Stage, c *compiler, op *parser.RedactOp) error {
	if len(op.Patterns) == 0 {
		return semErr(op, "redact needs at least one regular expression")
	}
	for _, pe := range op.Patterns {
		v, err := c.compile(pe)
		if err != nil {
			return err
		}
		if !v.IsConst() || v.ConstValue() == nil {
			return semErr(pe, "redact patterns must be constant regular expressions")
		}
		var texts []string
		switch x := v.ConstValue().(type) {
		case string:
			texts = []string{x}
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					texts = append(texts, s)
				}
			}
		case map[string]any:
			for _, k := range exec.SortedKeys(x) {
				if s, ok := x[k].(string); ok {
					texts = append(texts, s)
				}
			}
		}
		if len(texts) == 0 {
			return semErr(pe, "redact patterns must be regular expressions as strings")
		}
		for _, t := range texts {
			re, err := regexp.Compile(t)
			if err != nil {
				return semErr(pe, "redact pattern %q is not a valid regular expression: %v", t, err)
			}
			st.Redact.Regexes = append(st.Redact.Regexes, re.String())
		}
	}
	return nil
}

// redactFields resolves the `on` list, or takes every string field.
func redactFields(st *plan.Stage, c *compiler, in exec.Schema, op *parser.RedactOp) error {
	if len(op.On) == 0 {
		for i, col := range in {
			if col.Type == vector.String {
				st.Idx = append(st.Idx, i)
			}
		}
		return nil
	}
	for _, fe := range op.On {
		e, err := c.compile(fe)
		if err != nil {
			return err
		}
		if e.Col < 0 {
			return semErr(fe, "redact on needs field names")
		}
		if e.Typ != vector.String {
			return semErr(fe, "redact applies to string fields; %s is %s", e.Name, e.Typ)
		}
		st.Idx = append(st.Idx, e.Col)
	}
	return nil
}
