package exec

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aplite/aplite/core/fn"
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
	In, Sch Schema
	Src     *Expr
	Keys    []kvKey
	Index   map[string]int // key name → position in keys
	Pairs   string
	Kv      string
	Quotes  []quotePair
	Escapes string
	Greedy  bool
	Re      *regexp.Regexp
}

// kvKey is one extracted key and its output column.
type kvKey struct {
	Name string
	Typ  vector.Type
	Slot int
	Conv *fn.Func
}

// quotePair is one opening and closing quote character.
type quotePair struct{ Open, Close rune }

// Out implements Stage.
func (st *parseKvStage) Out() Schema { return st.Sch }

// Apply implements streamStage.
func (st *parseKvStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	v, err := st.Src.Run(x, b)
	if err != nil {
		return nil, err
	}
	cols, _ := textColumns(v, b, len(st.Keys), st.extract)
	nb := withColumns(b, make([]*vector.Vector, len(st.Sch)-len(st.In))...)
	for i, k := range st.Keys {
		out := cols[i]
		if k.Conv != nil {
			if out, err = k.Conv.Eval(x.Fn, []*vector.Vector{out}, b.rows()); err != nil {
				return nil, fmt.Errorf("parse-kv %s: %w", k.Name, err)
			}
		}
		nb.Cols[k.Slot] = out
	}
	return nb, nil
}

// extract finds the listed keys in one text.
func (st *parseKvStage) extract(s string) ([]string, bool) {
	out := make([]string, len(st.Keys))
	for i := range out {
		out[i] = nullText
	}
	found := 0
	set := func(key, val string) bool {
		if i, ok := st.Index[key]; ok && out[i] == nullText {
			out[i] = val
			found++
		}
		return found == len(out)
	}
	switch {
	case st.Re != nil:
		for _, m := range st.Re.FindAllStringSubmatch(s, -1) {
			if set(strings.TrimSpace(m[1]), strings.TrimSpace(m[2])) {
				break
			}
		}
	case st.Pairs != "":
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
	for _, tok := range st.split(s, st.Pairs) {
		k, v, isPair := st.cut(tok)
		if !isPair {
			if have && st.Greedy {
				val += st.Pairs + tok
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
		if strings.HasPrefix(tok[i:], st.Kv) {
			return tok[:i], tok[i+len(st.Kv):], true
		}
		i++
	}
	return "", "", false
}

// skipQuoted returns the end of a quoted run starting at s[i], if one
// starts there (an unclosed quote runs to the end).
func (st *parseKvStage) skipQuoted(s string, i int) (int, bool) {
	for _, q := range st.Quotes {
		if !strings.HasPrefix(s[i:], string(q.Open)) {
			continue
		}
		j := i + utf8.RuneLen(q.Open)
		for j < len(s) {
			r, w := utf8.DecodeRuneInString(s[j:])
			switch {
			case strings.ContainsRune(st.Escapes, r):
				j += w
				if j < len(s) {
					_, w = utf8.DecodeRuneInString(s[j:])
				}
			case r == q.Close:
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
	for _, q := range st.Quotes {
		o, c := string(q.Open), string(q.Close)
		if len(s) >= len(o)+len(c) && strings.HasPrefix(s, o) && strings.HasSuffix(s, c) {
			inner := s[len(o) : len(s)-len(c)]
			if st.Escapes == "" {
				return inner
			}
			var sb strings.Builder
			esc := false
			for _, r := range inner {
				if !esc && strings.ContainsRune(st.Escapes, r) {
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
