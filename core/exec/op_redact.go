package exec

import (
	"crypto/md5"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode/utf8"
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
	In     Schema
	Cols   []int
	Res    []*regexp.Regexp
	Token  string
	Hash   bool
	Groups bool
}

// Out implements Stage.
func (st *redactStage) Out() Schema { return st.In }

// Apply implements streamStage.
func (st *redactStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	nb := withColumns(b)
	for _, ci := range st.Cols {
		v, err := nb.Col(ci)
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
	for _, re := range st.Res {
		s = st.replaceAll(re, s)
	}
	return s
}

// replaceAll replaces the matches (or their groups) of re in s.
func (st *redactStage) replaceAll(re *regexp.Regexp, s string) string {
	var ms [][]int
	if st.Groups && re.NumSubexp() > 0 {
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
		if st.Groups && len(m) > 2 {
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
	case st.Hash:
		sum := md5.Sum([]byte(match))
		return hex.EncodeToString(sum[:])
	case utf8.RuneCountInString(st.Token) == 1:
		return strings.Repeat(st.Token, utf8.RuneCountInString(match))
	}
	return st.Token
}
