package core

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// parseKvStage is parse-kv: the listed keys are looked up in a text of
// key/value pairs and each becomes a column (replacing a column of the
// same name); a key that is absent gives null. Three modes, as KQL has:
//
//   - pair_delimiter and kv_delimiter: the text is split into pairs at the
//     pair delimiter (not inside quotes), each pair into key and value at
//     the first kv delimiter. Keys and values may be quoted (quote='"' or
//     an open/close pair such as quote='()'), with escape characters inside
//     quotes. With greedy=true a value runs on to the next pair that has a
//     kv delimiter, so unquoted values may contain the pair delimiter.
//   - regex: a regular expression with two groups, key and value.
//   - neither: any character that is not a letter or digit separates; a
//     key is followed by one separator and its value.
//
// The first occurrence of a key wins; surrounding spaces are trimmed.
// It runs in the scan workers, once per distinct value of a dictionary
// column.
type parseKvStage struct {
	in, sch schema
	src     *expr
	keys    []kvKey
	index   map[string]int // key name → position in keys
	pairs   string
	kv      string
	quotes  []quotePair
	escapes string
	greedy  bool
	re      *regexp.Regexp
}

// kvKey is one extracted key and its output column.
type kvKey struct {
	name string
	typ  vector.Type
	slot int
	conv *fn.Func
}

// quotePair is one opening and closing quote character.
type quotePair struct{ open, close rune }

func (p *planner) planParseKv(in schema, op *parser.ParseKvOp) (stage, error) {
	c := p.compilerFor(in)
	src, err := c.compile(op.Expr)
	if err != nil {
		return nil, err
	}
	if src.typ != vector.String {
		src = castExpr(src, vector.String)
	}
	st := &parseKvStage{in: in, sch: append(schema(nil), in...), src: src, index: map[string]int{}}
	if err := parseKvOptions(st, c, op); err != nil {
		return nil, err
	}
	for _, k := range op.Keys {
		if _, dup := st.index[k.Name]; dup {
			return nil, semErr(k, "parse-kv lists key %q twice", k.Name)
		}
		key := kvKey{name: k.Name, typ: k.Type}
		if key.typ != vector.String {
			if key.conv = fn.Lookup(convName[key.typ]); key.conv == nil {
				return nil, semErr(k, "parse-kv cannot extract a value of type %s", key.typ)
			}
		}
		key.slot = st.sch.index(key.name)
		if key.slot < 0 {
			key.slot = len(st.sch)
			st.sch = append(st.sch, colDef{key.name, key.typ})
		} else {
			st.sch[key.slot].Type = key.typ
		}
		st.index[k.Name] = len(st.keys)
		st.keys = append(st.keys, key)
	}
	return st, nil
}

// parseKvOptions reads the with (...) list.
func parseKvOptions(st *parseKvStage, c *compiler, op *parser.ParseKvOp) error {
	for _, o := range op.Options {
		v, err := c.compile(o.Expr)
		if err != nil {
			return err
		}
		if !v.isConst() || v.cnst.IsNull(0) {
			return semErr(o.Expr, "parse-kv option %s must be a constant", o.Name)
		}
		val := v.constValue()
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
			st.greedy = b
			continue
		default:
			return semErr(o, "unknown parse-kv option %q (want pair_delimiter, kv_delimiter, quote, escape, greedy or regex)", o.Name)
		}
		if err := parseKvOption(st, o, strings.ToLower(o.Name), s); err != nil {
			return err
		}
	}
	if (st.pairs == "") != (st.kv == "") {
		return semErr(op, "parse-kv needs both pair_delimiter and kv_delimiter, or neither")
	}
	if st.re != nil && st.pairs != "" {
		return semErr(op, "parse-kv takes either delimiters or a regex, not both")
	}
	return nil
}

// parseKvOption records one string option.
func parseKvOption(st *parseKvStage, o *parser.NamedExpr, name, s string) error {
	switch name {
	case "pair_delimiter":
		st.pairs = s
	case "kv_delimiter":
		st.kv = s
	case "quote":
		r := []rune(s)
		switch len(r) {
		case 1:
			st.quotes = append(st.quotes, quotePair{r[0], r[0]})
		case 2:
			st.quotes = append(st.quotes, quotePair{r[0], r[1]})
		default:
			return semErr(o.Expr, "parse-kv quote must be one or two characters")
		}
	case "escape":
		if len([]rune(s)) != 1 {
			return semErr(o.Expr, "parse-kv escape must be one character")
		}
		st.escapes += s
	case "regex":
		re, err := regexp.Compile(s)
		if err != nil {
			return semErr(o.Expr, "parse-kv regex is not valid: %v", err)
		}
		if re.NumSubexp() != 2 {
			return semErr(o.Expr, "parse-kv regex must have exactly two groups (key and value), it has %d", re.NumSubexp())
		}
		st.re = re
	}
	return nil
}

func (st *parseKvStage) out() schema { return st.sch }

func (st *parseKvStage) apply(x *execCtx, b *batch) (*batch, error) {
	v, err := st.src.run(x, b)
	if err != nil {
		return nil, err
	}
	cols, _ := textColumns(v, b, len(st.keys), st.extract)
	nb := withColumns(b, make([]*vector.Vector, len(st.sch)-len(st.in))...)
	for i, k := range st.keys {
		out := cols[i]
		if k.conv != nil {
			if out, err = k.conv.Eval(x.fn, []*vector.Vector{out}, b.rows()); err != nil {
				return nil, fmt.Errorf("parse-kv %s: %w", k.name, err)
			}
		}
		nb.Cols[k.slot] = out
	}
	return nb, nil
}

// extract finds the listed keys in one text.
func (st *parseKvStage) extract(s string) ([]string, bool) {
	out := make([]string, len(st.keys))
	for i := range out {
		out[i] = nullText
	}
	found := 0
	set := func(key, val string) bool {
		if i, ok := st.index[key]; ok && out[i] == nullText {
			out[i] = val
			found++
		}
		return found == len(out)
	}
	switch {
	case st.re != nil:
		for _, m := range st.re.FindAllStringSubmatch(s, -1) {
			if set(strings.TrimSpace(m[1]), strings.TrimSpace(m[2])) {
				break
			}
		}
	case st.pairs != "":
		st.delimited(s, set)
	default:
		st.undelimited(s, set)
	}
	return out, true
}

// delimited walks the pairs of s; set returns true once every key is
// found.
func (st *parseKvStage) delimited(s string, set func(k, v string) bool) {
	var key, val string
	have := false
	for _, tok := range st.split(s, st.pairs) {
		k, v, isPair := st.cut(tok)
		if !isPair {
			if have && st.greedy {
				val += st.pairs + tok
			}
			continue
		}
		if have && set(key, st.unquote(val)) {
			return
		}
		key, val, have = st.unquote(k), v, true
	}
	if have {
		set(key, st.unquote(val))
	}
}

// split cuts s at every sep outside quotes.
func (st *parseKvStage) split(s, sep string) []string {
	var out []string
	start, i := 0, 0
	for i < len(s) {
		if end, ok := st.skipQuoted(s, i); ok {
			i = end
			continue
		}
		if strings.HasPrefix(s[i:], sep) {
			out = append(out, s[start:i])
			i += len(sep)
			start = i
			continue
		}
		i++
	}
	return append(out, s[start:])
}

// cut splits a pair at its first kv delimiter outside quotes.
func (st *parseKvStage) cut(tok string) (k, v string, ok bool) {
	i := 0
	for i < len(tok) {
		if end, q := st.skipQuoted(tok, i); q {
			i = end
			continue
		}
		if strings.HasPrefix(tok[i:], st.kv) {
			return tok[:i], tok[i+len(st.kv):], true
		}
		i++
	}
	return "", "", false
}

// skipQuoted returns the end of a quoted run starting at s[i], if one
// starts there (an unclosed quote runs to the end).
func (st *parseKvStage) skipQuoted(s string, i int) (int, bool) {
	for _, q := range st.quotes {
		if !strings.HasPrefix(s[i:], string(q.open)) {
			continue
		}
		j := i + utf8.RuneLen(q.open)
		for j < len(s) {
			r, w := utf8.DecodeRuneInString(s[j:])
			switch {
			case strings.ContainsRune(st.escapes, r):
				j += w
				if j < len(s) {
					_, w = utf8.DecodeRuneInString(s[j:])
				}
			case r == q.close:
				return j + w, true
			}
			j += w
		}
		return len(s), true
	}
	return i, false
}

// unquote trims a key or value and removes its quotes and escapes.
func (st *parseKvStage) unquote(s string) string {
	s = strings.TrimSpace(s)
	for _, q := range st.quotes {
		o, c := string(q.open), string(q.close)
		if len(s) >= len(o)+len(c) && strings.HasPrefix(s, o) && strings.HasSuffix(s, c) {
			inner := s[len(o) : len(s)-len(c)]
			if st.escapes == "" {
				return inner
			}
			var sb strings.Builder
			esc := false
			for _, r := range inner {
				if !esc && strings.ContainsRune(st.escapes, r) {
					esc = true
					continue
				}
				esc = false
				sb.WriteRune(r)
			}
			return sb.String()
		}
	}
	return s
}

// undelimited finds `key <sep> value` where sep is one character that is
// not a letter or digit; a value is a quoted run or a run of letters and
// digits.
func (st *parseKvStage) undelimited(s string, set func(k, v string) bool) {
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += w
			continue
		}
		end := scanWord(s, i)
		key := s[i:end]
		j := skipSpaces(s, end)
		if j >= len(s) {
			return
		}
		if r, _ = utf8.DecodeRuneInString(s[j:]); isWordRune(r) {
			i = end
			continue
		}
		j = skipSpaces(s, j+utf8.RuneLen(r))
		if q, ok := st.skipQuoted(s, j); ok {
			if set(key, st.unquote(s[j:q])) {
				return
			}
			i = q
			continue
		}
		vend := scanWord(s, j)
		if vend > j && set(key, s[j:vend]) {
			return
		}
		i = max(vend, j)
	}
}

// scanWord returns the end of the run of word characters at s[i].
func scanWord(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			break
		}
		i += w
	}
	return i
}

// skipSpaces returns the first non-space position at or after i.
func skipSpaces(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += w
	}
	return i
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
