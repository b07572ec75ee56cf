package core

import (
	"crypto/md5"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// redactStage is Axiom's redact: every match of the regular expressions
// in the chosen string fields (all string fields without `on`) is
// replaced. A one-character replaceToken (default "*") stands for each
// character of the match, a longer token for the whole match, and
// replaceHash=true puts the MD5 hex digest of the match instead. With
// redactGroups=true only the regex's capturing groups are replaced, which
// keeps the structure around them. The expressions apply in order.
//
// It runs in the scan workers; a dictionary column is redacted once per
// distinct value.
type redactStage struct {
	in     schema
	cols   []int
	res    []*regexp.Regexp
	token  string
	hash   bool
	groups bool
}

func (p *planner) planRedact(in schema, op *parser.RedactOp) (stage, error) {
	c := p.compilerFor(in)
	st := &redactStage{in: in, token: "*"}
	if op.ReplaceToken != nil {
		v, err := constOption(c, op.ReplaceToken, "replaceToken", vector.String)
		if err != nil {
			return nil, err
		}
		if st.token = v.(string); st.token == "" {
			return nil, semErr(op.ReplaceToken, "redact replaceToken must not be empty")
		}
	}
	for _, o := range []struct {
		e    parser.Expr
		name string
		dst  *bool
	}{{op.ReplaceHash, "replaceHash", &st.hash}, {op.RedactGroups, "redactGroups", &st.groups}} {
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
	return st, nil
}

// constOption compiles an operator option that must be a constant of type t.
func constOption(c *compiler, e parser.Expr, name string, t vector.Type) (any, error) {
	v, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	if !v.isConst() || v.typ != t || v.cnst.IsNull(0) {
		return nil, semErr(e, "%s must be a constant %s", name, t)
	}
	return v.constValue(), nil
}

// redactPatterns compiles the regular expressions: string constants, or a
// dynamic array or bag of them.
func redactPatterns(st *redactStage, c *compiler, op *parser.RedactOp) error {
	if len(op.Patterns) == 0 {
		return semErr(op, "redact needs at least one regular expression")
	}
	for _, pe := range op.Patterns {
		v, err := c.compile(pe)
		if err != nil {
			return err
		}
		if !v.isConst() || v.cnst.IsNull(0) {
			return semErr(pe, "redact patterns must be constant regular expressions")
		}
		var texts []string
		switch x := v.constValue().(type) {
		case string:
			texts = []string{x}
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					texts = append(texts, s)
				}
			}
		case map[string]any:
			for _, k := range sortedKeys(x) {
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
			st.res = append(st.res, re)
		}
	}
	return nil
}

// redactFields resolves the `on` list, or takes every string field.
func redactFields(st *redactStage, c *compiler, in schema, op *parser.RedactOp) error {
	if len(op.On) == 0 {
		for i, col := range in {
			if col.Type == vector.String {
				st.cols = append(st.cols, i)
			}
		}
		return nil
	}
	for _, fe := range op.On {
		e, err := c.compile(fe)
		if err != nil {
			return err
		}
		if e.col < 0 {
			return semErr(fe, "redact on needs field names")
		}
		if e.typ != vector.String {
			return semErr(fe, "redact applies to string fields; %s is %s", e.name, e.typ)
		}
		st.cols = append(st.cols, e.col)
	}
	return nil
}

func (st *redactStage) out() schema { return st.in }

func (st *redactStage) apply(x *execCtx, b *batch) (*batch, error) {
	nb := withColumns(b)
	for _, ci := range st.cols {
		v, err := nb.col(ci)
		if err != nil {
			return nil, err
		}
		cols, _ := textColumns(v, b, 1, func(s string) ([]string, bool) {
			return []string{st.redact(s)}, true
		})
		nb.Cols[ci] = cols[0]
	}
	return nb, nil
}

// redact applies every expression to s in turn.
func (st *redactStage) redact(s string) string {
	for _, re := range st.res {
		s = st.replaceAll(re, s)
	}
	return s
}

// replaceAll replaces the matches (or their groups) of re in s.
func (st *redactStage) replaceAll(re *regexp.Regexp, s string) string {
	var ms [][]int
	if st.groups && re.NumSubexp() > 0 {
		ms = re.FindAllStringSubmatchIndex(s, -1)
	} else {
		ms = re.FindAllStringIndex(s, -1)
	}
	if len(ms) == 0 {
		return s
	}
	var sb strings.Builder
	last := 0
	for _, m := range ms {
		spans := [][2]int{{m[0], m[1]}}
		if st.groups && len(m) > 2 {
			spans = spans[:0]
			for g := 2; g < len(m); g += 2 {
				if m[g] >= last && m[g] >= 0 {
					spans = append(spans, [2]int{m[g], m[g+1]})
				}
			}
		}
		for _, sp := range spans {
			if sp[0] < last {
				continue // a nested group inside one already replaced
			}
			sb.WriteString(s[last:sp[0]])
			sb.WriteString(st.replacement(s[sp[0]:sp[1]]))
			last = sp[1]
		}
	}
	sb.WriteString(s[last:])
	return sb.String()
}

// replacement is what stands for one redacted text.
func (st *redactStage) replacement(match string) string {
	switch {
	case st.hash:
		sum := md5.Sum([]byte(match))
		return hex.EncodeToString(sum[:])
	case utf8.RuneCountInString(st.token) == 1:
		return strings.Repeat(st.token, utf8.RuneCountInString(match))
	}
	return st.token
}
