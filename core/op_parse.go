package core

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// planParse plans parse's matcher from its pattern: the regular
// expression's text, each capture's group and output column, and the
// scanner of a simple pattern, so the runner never sees the pattern.
func (p *planner) planParse(in exec.Schema, op *parser.ParseOp) (*step, error) {
	src, err := p.compilerFor(in).compile(op.Expr)
	if err != nil {
		return nil, err
	}
	if src.Typ != vector.String {
		if src, err = castExpr(p.fc, src, vector.String); err != nil {
			return nil, err
		}
	}
	kind := strings.ToLower(op.Kind)
	if kind == "" {
		kind = "simple"
	}
	if op.Flags != "" && kind != "regex" {
		return nil, semErr(op, "parse flags need kind=regex")
	}
	st := &parseNode{sch: append(exec.Schema(nil), in...), pp: &plan.Parse{Where: op.Where, Relaxed: kind == "relaxed"}}
	text, err := parsePattern(st, op, kind)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(text)
	if err != nil {
		return nil, semErr(op, "parse pattern is not a valid regular expression: %v", err)
	}
	st.pp.Regex = re.String()
	for i := range st.pp.Caps {
		st.pp.Caps[i].Group = re.SubexpIndex(fmt.Sprintf("c%d", i))
	}
	if kind == "simple" {
		st.pp.Fast = fastPattern(op.Pattern)
	}
	return one(plan.Stage{Kind: plan.SParse, Schema: fields(st.sch), Pred: src.Node, Parse: st.pp}, st.sch), nil
}

// parseNode is a parse's node as planParse fills it, and its output
// schema so far.
type parseNode struct {
	sch exec.Schema
	pp  *plan.Parse
}

// parsePattern builds the regular expression and the capture list.
func parsePattern(st *parseNode, op *parser.ParseOp, kind string) (string, error) {
	var sb strings.Builder
	lazy := "*?"
	switch kind {
	case "regex":
		if strings.Trim(op.Flags, "imsU") != "" {
			return "", semErr(op, "unknown parse regex flag in %q (want i, m, s or U)", op.Flags)
		}
		if op.Flags != "" {
			sb.WriteString("(?" + op.Flags + ")")
		}
		lazy = "*"
	default:
		sb.WriteString(`(?s)^`)
	}
	seen := map[string]bool{}
	for _, it := range op.Pattern {
		switch {
		case it.Star:
			sb.WriteString(".")
			sb.WriteString(lazy)
		case it.Name == "":
			if kind == "regex" {
				if _, err := regexp.Compile(it.Const); err != nil {
					return "", semErr(it, "parse pattern %q is not a valid regular expression: %v", it.Const, err)
				}
				sb.WriteString("(?:" + it.Const + ")")
			} else {
				sb.WriteString(regexp.QuoteMeta(it.Const))
			}
		default:
			if seen[it.Name] {
				return "", semErr(it, "parse captures %q twice", it.Name)
			}
			seen[it.Name] = true
			c, err := parseCaptureOf(st, it)
			if err != nil {
				return "", err
			}
			body := captureRegex(it.Type, lazy)
			switch {
			case kind != "relaxed" || body == "."+lazy:
				fmt.Fprintf(&sb, "(?P<c%d>%s)", len(st.pp.Caps), body)
			default:
				// Relaxed: take what looks like the type, skip the rest
				// up to the next constant; no such prefix gives null.
				fmt.Fprintf(&sb, "(?P<c%d>%s)?.*?", len(st.pp.Caps), body)
			}
			st.pp.Caps = append(st.pp.Caps, c)
		}
	}
	if kind != "regex" {
		sb.WriteString("$")
	}
	if len(st.pp.Caps) == 0 {
		return "", semErr(op, "parse pattern has no capture: name the parts to extract, e.g. * \"id=\" id:long")
	}
	return sb.String(), nil
}

// parseCaptureOf plans the output column of one capture.
func parseCaptureOf(st *parseNode, it *parser.ParseItem) (plan.ParseCapture, error) {
	c := plan.ParseCapture{Name: it.Name, Type: it.Type}
	if c.Type != vector.String {
		name, ok := exec.ConvName[c.Type]
		if !ok {
			return c, semErr(it, "parse cannot capture a value of type %s", c.Type)
		}
		if fn.Lookup(name) == nil {
			return c, semErr(it, "parse needs the %s function, which is not available", name)
		}
	}
	c.Slot = st.sch.Index(c.Name)
	if c.Slot < 0 {
		c.Slot = len(st.sch)
		st.sch = append(st.sch, exec.ColDef{Name: c.Name, Type: c.Type})
	} else {
		st.sch[c.Slot].Type = c.Type
	}
	return c, nil
}

// captureRegex is what a typed capture may match in strict modes.
func captureRegex(t vector.Type, lazy string) string {
	switch t {
	case vector.Int:
		return `-?\d+`
	case vector.Float:
		return `-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?`
	case vector.Bool:
		return `(?i:true|false)`
	}
	return "." + lazy
}
