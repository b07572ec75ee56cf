package core

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// parseStage is parse and parse-where: a pattern of string constants,
// `*` wildcards and captures `name[:type]` is turned into one regular
// expression; each capture becomes a column (replacing a column of the
// same name). A row that does not match gets nulls (parse) or is dropped
// (parse-where).
//
// kind=simple and kind=relaxed match the constants literally and the
// whole text (anchored at both ends); captures take as little as they
// can. In simple mode a typed capture must look like its type (a long is
// digits) and a value that does not convert fails the whole row; in
// relaxed mode a typed capture takes the longest prefix that looks like
// its type and skips the rest, and a value that does not convert only
// nulls that column. kind=regex treats the constants
// as regular expressions, is not anchored, and captures are greedy unless
// flags=U; a typed capture must convert.
//
// It runs in the scan workers. Over a dictionary-encoded column the
// parsePattern runs once per distinct value.
type parseStage struct {
	in, sch schema
	src     *expr
	re      *regexp.Regexp
	caps    []parseCapture
	where   bool
	relaxed bool
	fast    []fastItem // kind=simple scanner, nil when the shape needs the regexp
}

// parseCapture is one capture: its regexp group and output column.
type parseCapture struct {
	name  string
	typ   vector.Type
	group int
	slot  int
	conv  *fn.Func // string → typ conversion; nil for strings
}

func (p *planner) planParse(in schema, op *parser.ParseOp) (stage, error) {
	src, err := p.compilerFor(in).compile(op.Expr)
	if err != nil {
		return nil, err
	}
	if src.typ != vector.String {
		src = castExpr(src, vector.String)
	}
	kind := strings.ToLower(op.Kind)
	if kind == "" {
		kind = "simple"
	}
	if op.Flags != "" && kind != "regex" {
		return nil, semErr(op, "parse flags need kind=regex")
	}
	st := &parseStage{in: in, sch: append(schema(nil), in...), src: src, where: op.Where, relaxed: kind == "relaxed"}
	text, err := parsePattern(st, op, kind)
	if err != nil {
		return nil, err
	}
	if st.re, err = regexp.Compile(text); err != nil {
		return nil, semErr(op, "parse pattern is not a valid regular expression: %v", err)
	}
	for i := range st.caps {
		st.caps[i].group = st.re.SubexpIndex(fmt.Sprintf("c%d", i))
	}
	if kind == "simple" {
		st.fast = fastPattern(op.Pattern)
	}
	return st, nil
}

// parsePattern builds the regular expression and the capture list.
func parsePattern(st *parseStage, op *parser.ParseOp, kind string) (string, error) {
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
				fmt.Fprintf(&sb, "(?P<c%d>%s)", len(st.caps), body)
			default:
				// Relaxed: take what looks like the type, skip the rest
				// up to the next constant; no such prefix gives null.
				fmt.Fprintf(&sb, "(?P<c%d>%s)?.*?", len(st.caps), body)
			}
			st.caps = append(st.caps, c)
		}
	}
	if kind != "regex" {
		sb.WriteString("$")
	}
	if len(st.caps) == 0 {
		return "", semErr(op, "parse pattern has no capture: name the parts to extract, e.g. * \"id=\" id:long")
	}
	return sb.String(), nil
}

// parseCaptureOf plans the output column of one capture.
func parseCaptureOf(st *parseStage, it *parser.ParseItem) (parseCapture, error) {
	c := parseCapture{name: it.Name, typ: it.Type}
	if c.typ != vector.String {
		name, ok := convName[c.typ]
		if !ok {
			return c, semErr(it, "parse cannot capture a value of type %s", c.typ)
		}
		if c.conv = fn.Lookup(name); c.conv == nil {
			return c, semErr(it, "parse needs the %s function, which is not available", name)
		}
	}
	c.slot = st.sch.index(c.name)
	if c.slot < 0 {
		c.slot = len(st.sch)
		st.sch = append(st.sch, colDef{c.name, c.typ})
	} else {
		st.sch[c.slot].Type = c.typ
	}
	return c, nil
}

// convName names the registry function converting text to each type.
var convName = map[vector.Type]string{
	vector.Int: "tolong", vector.Float: "toreal", vector.Bool: "tobool",
	vector.DateTime: "todatetime", vector.TimeSpan: "totimespan", vector.Dynamic: "todynamic",
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

func (st *parseStage) out() schema { return st.sch }

func (st *parseStage) apply(x *execCtx, b *batch) (*batch, error) {
	v, err := st.src.run(x, b)
	if err != nil {
		return nil, err
	}
	caps, matched := st.extract(v, b)
	outs := make([]*vector.Vector, len(caps))
	var failed []bool
	for i, c := range st.caps {
		outs[i] = caps[i]
		if c.conv == nil {
			continue
		}
		// Every row, not the live ones: conversionFailures below reads
		// them all.
		if outs[i], err = c.conv.Eval(x.fn, []*vector.Vector{caps[i]}, fn.Dense(b.N)); err != nil {
			return nil, fmt.Errorf("parse %s: %w", c.name, err)
		}
		if !st.relaxed {
			failed = conversionFailures(caps[i], outs[i], b.N, failed)
		}
	}
	if failed != nil {
		for i := range outs {
			outs[i] = nullRows(outs[i], failed, b.N)
		}
		for i, f := range failed {
			matched[i] = matched[i] && !f
		}
	}
	nb := withColumns(b, make([]*vector.Vector, len(st.sch)-len(st.in))...)
	for i, c := range st.caps {
		nb.Cols[c.slot] = outs[i]
	}
	if st.where {
		return keepMatched(nb, matched), nil
	}
	return nb, nil
}

// extract runs the pattern over every live row and returns one string
// column per capture (null where the row does not match) and the rows
// that matched.
func (st *parseStage) extract(v *vector.Vector, b *batch) ([]*vector.Vector, []bool) {
	return textColumns(v, b, len(st.caps), st.match)
}

// match runs the pattern over s: the capture texts, and whether it
// matched. A group that took no part in the match is null.
func (st *parseStage) match(s string) ([]string, bool) {
	if st.fast != nil {
		out := make([]string, len(st.caps))
		if ok, definite := fastMatch(st.fast, s, out); definite {
			return out, ok
		}
	}
	m := st.re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil, false
	}
	out := make([]string, len(st.caps))
	for i, c := range st.caps {
		lo, hi := m[2*c.group], m[2*c.group+1]
		if lo < 0 {
			out[i] = nullText
			continue
		}
		out[i] = s[lo:hi]
	}
	return out, true
}

// conversionFailures marks the rows where a captured text did not
// convert to its type.
func conversionFailures(text, conv *vector.Vector, n int, failed []bool) []bool {
	for r := 0; r < n; r++ {
		if !text.IsNull(r) && conv.IsNull(r) {
			if failed == nil {
				failed = make([]bool, n)
			}
			failed[r] = true
		}
	}
	return failed
}

// nullRows returns v with the failed rows set to null.
func nullRows(v *vector.Vector, failed []bool, n int) *vector.Vector {
	v = v.Materialize()
	cp := *v
	cp.Mixed = nil // its bits would still call the nulled rows numbers
	if cp.Valid == nil {
		cp.Valid = vector.NewBitmapSet(n)
	} else {
		cp.Valid = append(vector.Bitmap(nil), cp.Valid...)
	}
	for r, f := range failed {
		if f {
			cp.Valid.Clear(r)
		}
	}
	return &cp
}

// keepMatched narrows b's selection to the live rows that matched; nil
// when none did.
func keepMatched(b *batch, matched []bool) *batch {
	var sel []int32
	for _, r := range b.liveRows() {
		if matched[r] {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return nil
	}
	b.Sel = sel
	return b
}
