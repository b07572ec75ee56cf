package fn

// The tokenizer of parse_sql's small SQL dialect: identifiers (bare, or
// quoted with "", `` or []), single-quoted strings with '' as an escaped
// quote, numbers, operators and punctuation. Keywords are identifiers
// that the parser compares case-insensitively.

import (
	"errors"
	"strings"
)

type sqlTokKind uint8

const (
	sqlEOF sqlTokKind = iota
	sqlIdent
	sqlQuotedIdent
	sqlString
	sqlNumber
	sqlOp // operators and punctuation: = <> != < <= > >= + - * / % || ( ) , ; .
)

type sqlTok struct {
	kind sqlTokKind
	text string
}

var errSQL = errors.New("unsupported or invalid SQL")

// sqlLex splits a statement into tokens, ending with an sqlEOF token.
func sqlLex(s string) ([]sqlTok, error) {
	var toks []sqlTok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case sqlIdentStart(c):
			j := i + 1
			for j < len(s) && sqlIdentPart(s[j]) {
				j++
			}
			toks = append(toks, sqlTok{sqlIdent, s[i:j]})
			i = j
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			j := sqlNumberEnd(s, i)
			toks = append(toks, sqlTok{sqlNumber, s[i:j]})
			i = j
		case c == '\'':
			text, j, err := sqlQuoted(s, i, '\'')
			if err != nil {
				return nil, err
			}
			toks = append(toks, sqlTok{sqlString, text})
			i = j
		case c == '"' || c == '`':
			text, j, err := sqlQuoted(s, i, c)
			if err != nil {
				return nil, err
			}
			if starName(text) {
				return nil, errSQL
			}
			toks = append(toks, sqlTok{sqlQuotedIdent, text})
			i = j
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return nil, errSQL
			}
			if starName(s[i+1 : i+j]) {
				return nil, errSQL
			}
			toks = append(toks, sqlTok{sqlQuotedIdent, s[i+1 : i+j]})
			i += j + 1
		default:
			op := sqlOperator(s[i:])
			if op == "" {
				return nil, errSQL
			}
			toks = append(toks, sqlTok{sqlOp, op})
			i += len(op)
		}
	}
	return append(toks, sqlTok{kind: sqlEOF}), nil
}

func sqlIdentStart(c byte) bool {
	return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

func sqlIdentPart(c byte) bool {
	return sqlIdentStart(c) || (c >= '0' && c <= '9') || c == '$'
}

func sqlNumberEnd(s string, i int) int {
	j := i
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
		j++
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && s[k] >= '0' && s[k] <= '9' {
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			j = k
		}
	}
	return j
}

// sqlQuoted reads a quoted token starting at s[i]; a doubled quote
// stands for one quote character.
func sqlQuoted(s string, i int, q byte) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != q {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return b.String(), j + 1, nil
	}
	return "", 0, errSQL
}

var sqlOperators = []string{"<>", "!=", "<=", ">=", "||", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ";", "."}

func sqlOperator(s string) string {
	for _, op := range sqlOperators {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

// starName reports a quoted name that the model could not tell from a
// star ("*" or "t.*"): format_sql would print it as one.
func starName(s string) bool {
	for _, p := range strings.Split(s, ".") {
		if p == "*" {
			return true
		}
	}
	return false
}
