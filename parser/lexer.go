package parser

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the hand-written lexer. participle refers to them by the
// names in tokenSymbols; keywords are plain Ident tokens because APL
// keywords are contextual (a column may be called kind, count or by).
const (
	tIdent    lexer.TokenType = -2 - iota // name or keyword
	tInt                                  // 42, 0x1F
	tReal                                 // 1.5, 1e3
	tTimespan                             // 1d, 1.5h, 100ms
	tString                               // "..." '...' @"..." (raw text, quotes kept)
	tRawLit                               // datetime(...), timespan(...), time(...)
	tOp                                   // punctuation and !word operators
)

var tokenSymbols = map[string]lexer.TokenType{
	"EOF":      lexer.EOF,
	"Ident":    tIdent,
	"Int":      tInt,
	"Real":     tReal,
	"Timespan": tTimespan,
	"String":   tString,
	"RawLit":   tRawLit,
	"Op":       tOp,
}

// hyphenWords are the keywords spelled with a hyphen. The lexer joins
// `project` `-` `away` into one token only for these, so `a-b` stays a
// subtraction.
var hyphenWords = map[string]bool{
	"project-away": true, "project-keep": true, "project-rename": true,
	"project-reorder": true, "extend-valid": true, "mv-expand": true,
	"make-series": true, "parse-kv": true, "parse-where": true,
	"granny-asc": true, "granny-desc": true,
}

// rawCallWords are the literal forms whose parenthesised body is not
// ordinary tokens (`datetime(2019-11-30 23:59:59.9)`, `timespan(1.02:03:04)`),
// so the lexer takes the whole call as one token.
var rawCallWords = map[string]bool{"datetime": true, "timespan": true, "time": true}

// lexDef is the participle lexer.Definition. Parse does not go through
// it (it scans once and feeds token slices to participle), but participle
// needs it to resolve the token names used in grammar tags.
type lexDef struct{}

func (lexDef) Symbols() map[string]lexer.TokenType { return tokenSymbols }

func (lexDef) Lex(_ string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	toks, errs := scan(string(b))
	if len(errs) > 0 {
		return nil, errs
	}
	return &sliceLexer{toks: toks}, nil
}

// sliceLexer replays already scanned tokens to participle.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (s *sliceLexer) Next() (lexer.Token, error) {
	if s.i >= len(s.toks) {
		return s.toks[len(s.toks)-1], nil
	}
	t := s.toks[s.i]
	s.i++
	return t, nil
}

// scanner turns query text into tokens, tracking rune columns.
type scanner struct {
	src  string
	off  int
	line int
	col  int
	toks []lexer.Token
	errs ErrorList
}

// scan tokenizes src. The returned slice always ends with an EOF token.
// Errors (unterminated strings, bad numbers, stray characters) are
// collected; scanning resumes after each so several can be reported.
func scan(src string) ([]lexer.Token, ErrorList) {
	s := &scanner{src: src, line: 1, col: 1, toks: make([]lexer.Token, 0, min(len(src)/4, MaxTokens)+2)}
	if !utf8.ValidString(src) {
		// Strings and names must survive printing unchanged; invalid bytes
		// would not, so they are refused where they start.
		bad := 0
		for bad < len(src) {
			r, n := utf8.DecodeRuneInString(src[bad:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			bad += n
		}
		s.advance(bad)
		s.errorf(s.pos(), "invalid UTF-8 in query text")
		s.toks = append(s.toks, lexer.Token{Type: lexer.EOF, Pos: s.pos()})
		return s.toks, s.errs
	}
	for s.off < len(s.src) && len(s.errs) < maxErrors {
		s.next()
		if len(s.toks) > MaxTokens {
			s.errorf(s.toks[MaxTokens].Pos, "the query has more than "+itoa(MaxTokens)+" tokens (names, literals and operators); split it into smaller queries")
			break
		}
	}
	s.toks = append(s.toks, lexer.Token{Type: lexer.EOF, Pos: s.pos()})
	return s.toks, s.errs
}

func (s *scanner) pos() lexer.Position {
	return lexer.Position{Offset: s.off, Line: s.line, Column: s.col}
}

// advance moves over n bytes, updating line and rune column.
func (s *scanner) advance(n int) {
	end := s.off + n
	for s.off < end {
		c := s.src[s.off]
		if c == '\n' {
			s.line++
			s.col = 1
			s.off++
			continue
		}
		if c < utf8.RuneSelf {
			s.off++
		} else {
			_, sz := utf8.DecodeRuneInString(s.src[s.off:])
			s.off += sz
		}
		s.col++
	}
}

func (s *scanner) emit(typ lexer.TokenType, start lexer.Position, n int) {
	s.advance(n)
	if len(s.toks) == cap(s.toks) {
		// Doubling, where append grows a large slice by a quarter: a
		// text of 100,000 one-byte tokens allocated 50 MB of copies.
		grown := make([]lexer.Token, len(s.toks), min(2*cap(s.toks), MaxTokens+2))
		copy(grown, s.toks)
		s.toks = grown
	}
	s.toks = append(s.toks, lexer.Token{Type: typ, Value: s.src[start.Offset:s.off], Pos: start})
}

func (s *scanner) errorf(p lexer.Position, msg string) {
	s.errs = append(s.errs, &Error{Pos: posOf(p), Msg: msg})
}

func (s *scanner) peekByte(i int) byte {
	if s.off+i < len(s.src) {
		return s.src[s.off+i]
	}
	return 0
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) next() {
	c := s.src[s.off]
	switch {
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		s.advance(1)
	case c == '/' && s.peekByte(1) == '/':
		n := strings.IndexByte(s.src[s.off:], '\n')
		if n < 0 {
			n = len(s.src) - s.off
		}
		s.advance(n)
	case isIdentStart(c):
		s.word()
	case isDigit(c):
		s.number()
	case c == '"' || c == '\'':
		s.quoted(s.pos(), 0)
	case c == '@' && (s.peekByte(1) == '"' || s.peekByte(1) == '\''):
		s.verbatim()
	case c == '!' && isIdentStart(s.peekByte(1)) && s.peekByte(1) != '$':
		s.negWord()
	default:
		s.punct()
	}
}

func (s *scanner) identLen(from int) int {
	i := from
	if i < len(s.src) && isIdentStart(s.src[i]) {
		i++
		for i < len(s.src) && isIdentChar(s.src[i]) {
			i++
		}
	}
	return i - from
}

func (s *scanner) word() {
	start := s.pos()
	n := s.identLen(s.off)
	w := s.src[s.off : s.off+n]
	// project-away, mv-expand, ...: join only known hyphenated keywords.
	if s.peekByte(n) == '-' {
		if m := s.identLen(s.off + n + 1); m > 0 && hyphenWords[s.src[s.off:s.off+n+1+m]] {
			s.emit(tIdent, start, n+1+m)
			return
		}
	}
	if w == "in" && s.peekByte(n) == '~' {
		s.emit(tOp, start, n+1)
		return
	}
	if rawCallWords[w] {
		if m, ok := s.rawCall(n); ok {
			s.emit(tRawLit, start, m)
			return
		}
	}
	s.emit(tIdent, start, n)
}

// rawCall measures `word ( ... )` for datetime/timespan/time literals. The
// body may hold quotes; it ends at the first `)` outside quotes. An empty
// body is no literal: `time()` is a call like `time(\n)`, so the canonical
// text of either parses back the same (fuzzing found the difference).
func (s *scanner) rawCall(n int) (int, bool) {
	i := s.off + n
	for i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t') {
		i++
	}
	if i >= len(s.src) || s.src[i] != '(' {
		return 0, false
	}
	if j := strings.IndexByte(s.src[i:], ')'); j >= 0 && strings.TrimSpace(s.src[i+1:i+j]) == "" {
		return 0, false
	}
	var quote byte
	for i++; i < len(s.src); i++ {
		c := s.src[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ')':
			return i + 1 - s.off, true
		case c == '(' || c == '|' || c == ';':
			// A line break inside is allowed: time(0\n) and its canonical
			// time(0) must read the same (fuzzing found the difference).
			return 0, false
		}
	}
	return 0, false
}

func (s *scanner) negWord() {
	start := s.pos()
	n := 1 + s.identLen(s.off+1)
	if s.src[s.off+1:s.off+n] == "in" && s.peekByte(n) == '~' {
		n++
	}
	s.emit(tOp, start, n)
}

func (s *scanner) digits(i int) int {
	for i < len(s.src) && isDigit(s.src[i]) {
		i++
	}
	return i
}

// number scans 42, 0x1F, 1.5, 1e3, 1.5e-3 and timespans 1d, 1.5h, 100ms.
// A number glued to letters that are not a timespan unit is an error.
func (s *scanner) number() {
	start := s.pos()
	i := s.off
	typ := tInt
	if s.src[i] == '0' && (s.peekByte(1) == 'x' || s.peekByte(1) == 'X') {
		j := i + 2
		for j < len(s.src) && isHex(s.src[j]) {
			j++
		}
		if j > i+2 && (j >= len(s.src) || !isIdentChar(s.src[j])) {
			s.emit(tInt, start, j-i)
			return
		}
	}
	i = s.digits(i)
	if i+1 < len(s.src) && s.src[i] == '.' && isDigit(s.src[i+1]) {
		typ = tReal
		i = s.digits(i + 1)
	} else if i < len(s.src) && s.src[i] == '.' && (i+1 == len(s.src) || s.src[i+1] != '.' && !isIdentChar(s.src[i+1])) {
		// "10." is a real, as in KQL; "1..2" (a range) and "a.b" are not.
		typ = tReal
		i++
	}
	hasExp := false
	if i < len(s.src) && (s.src[i] == 'e' || s.src[i] == 'E') {
		j := i + 1
		if j < len(s.src) && (s.src[j] == '+' || s.src[j] == '-') {
			j++
		}
		if j < len(s.src) && isDigit(s.src[j]) {
			typ = tReal
			hasExp = true
			i = s.digits(j)
		}
	}
	if typ == tReal && i+1 < len(s.src) && s.src[i] == '.' && isDigit(s.src[i+1]) {
		j := s.digits(i + 1)
		s.errorf(start, "bad number "+quoteText(s.src[s.off:j]))
		s.advance(j - s.off)
		return
	}
	if i < len(s.src) && isIdentChar(s.src[i]) {
		j := i
		for j < len(s.src) && isIdentChar(s.src[j]) {
			j++
		}
		if _, ok := timespanUnits[s.src[i:j]]; ok && !hasExp {
			s.emit(tTimespan, start, j-s.off)
			return
		}
		s.errorf(start, "bad number "+quoteText(s.src[s.off:j])+": unknown timespan unit or stray letters")
		s.advance(j - s.off)
		return
	}
	s.emit(typ, start, i-s.off)
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// quoted scans "..." or '...' with backslash escapes starting at s.off+skip.
// Strings end at the line end: an unterminated one is reported at its start.
func (s *scanner) quoted(start lexer.Position, skip int) {
	q := s.src[s.off+skip]
	for i := s.off + skip + 1; i < len(s.src); i++ {
		switch s.src[i] {
		case '\\':
			i++
		case q:
			s.emit(tString, start, i+1-s.off)
			return
		case '\n':
			s.unterminated(start, i)
			return
		}
	}
	s.unterminated(start, len(s.src))
}

func (s *scanner) unterminated(start lexer.Position, end int) {
	s.errorf(start, "unterminated string literal")
	s.advance(end - s.off)
}

// verbatim scans @"..." where a doubled quote stands for one quote.
func (s *scanner) verbatim() {
	start := s.pos()
	q := s.src[s.off+1]
	for i := s.off + 2; i < len(s.src); i++ {
		switch s.src[i] {
		case q:
			if i+1 < len(s.src) && s.src[i+1] == q {
				i++
				continue
			}
			s.emit(tString, start, i+1-s.off)
			return
		case '\n':
			s.unterminated(start, i)
			return
		}
	}
	s.unterminated(start, len(s.src))
}

var twoCharOps = [...]string{"..", "==", "!=", "<>", "<=", ">=", "=~", "!~"}

func (s *scanner) punct() {
	start := s.pos()
	rest := s.src[s.off:]
	for _, op := range twoCharOps {
		if strings.HasPrefix(rest, op) {
			s.emit(tOp, start, 2)
			return
		}
	}
	if strings.IndexByte("|()[]{},;:=<>+-*/%.!~?", rest[0]) >= 0 {
		s.emit(tOp, start, 1)
		return
	}
	r, n := utf8.DecodeRuneInString(rest)
	s.errorf(start, "unexpected character "+quoteText(string(r)))
	s.advance(n)
}
