package parser

import (
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// gPattern is a column or dataset name that may hold `*` wildcards and
// bracket-quoted parts: data*, ['x.y']*, geo.city, github-*. Its parts
// must touch (no whitespace), which participle's grammar cannot say, so
// it is a Parseable hook.
type gPattern struct {
	Text   string
	Quoted bool
	Sp     Span
}

// Parse implements participle.Parseable.
func (g *gPattern) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	if t.Type != tIdent && !isOp(t, "*") && !isOp(t, "[") {
		return participle.NextMatch
	}
	g.Sp.Start = posOf(t.Pos)
	var b strings.Builder
	next := t.Pos.Offset
	prevIdent := false
	var dot *lexer.Token // a '.' not yet followed by a name or a wildcard
	for t := lex.Peek(); t.Pos.Offset == next && !t.EOF(); t = lex.Peek() {
		isIdent := t.Type == tIdent
		switch {
		case isIdent && !prevIdent || isOp(t, "*") || isOp(t, ".") && b.Len() > 0:
			b.WriteString(t.Value)
			lex.Next()
			g.Sp.End = tokEnd(t)
			dot = nil
			if isOp(t, ".") {
				dot = t
			}
		case isOp(t, "["):
			name, end, err := quotedPatternPart(lex)
			if err != nil {
				return err
			}
			b.WriteString(name)
			g.Quoted = true
			g.Sp.End = end
			dot = nil
		default:
			return g.finish(&b, dot)
		}
		next = g.Sp.End.Offset
		prevIdent = isIdent
	}
	return g.finish(&b, dot)
}

// finish ends the name; dot is a trailing '.' (geo. is only a pattern's
// start, as in geo.*, never a name: it printed back as ['geo.'], another
// tree, which fuzzing found).
func (g *gPattern) finish(b *strings.Builder, dot *lexer.Token) error {
	g.Text = b.String()
	if g.Text == "" {
		return &Error{Pos: g.Sp.Start, Msg: "empty column name"}
	}
	if dot != nil {
		return &Error{Pos: posOf(dot.Pos), Msg: "a name cannot end with \".\": write name.* for the fields under it, or ['name.'] for a name with a dot at its end"}
	}
	return nil
}

// quotedPatternPart consumes `['name']`.
func quotedPatternPart(lex *lexer.PeekingLexer) (string, Pos, error) {
	lex.Next()
	s := lex.Peek()
	if s.Type != tString {
		return "", Pos{}, expected("a quoted name after \"[\"", s)
	}
	lex.Next()
	name, msg := unquote(s.Value)
	if msg != "" {
		return "", Pos{}, errAt(s, msg)
	}
	c := lex.Peek()
	if !isOp(c, "]") {
		return "", Pos{}, expected(`"]"`, c)
	}
	lex.Next()
	return name, tokEnd(c), nil
}

// gLetValue is the right side of `let name = ...`: a tabular expression
// or a scalar one. It is tabular when it starts with a tabular source
// keyword or holds a `|` at its own nesting level (or just inside a
// leading parenthesis). A lone name stays a scalar Ident here; lowering
// turns it into a table reference unless it names an earlier scalar let.
type gLetValue struct {
	Expr Expr
	Pipe *gPipeline
}

// Parse implements participle.Parseable.
func (g *gLetValue) Parse(lex *lexer.PeekingLexer) error {
	if !letIsTabular(lex) {
		return parseExprInto(lex, false, &g.Expr)
	}
	pipe, err := pipeParser.ParseFromLexer(lex, participle.AllowTrailing(true))
	if err != nil {
		return err
	}
	g.Pipe = pipe
	return nil
}

var tabularStarts = map[string]bool{
	"datatable": true, "print": true, "externaldata": true, "union": true, "search": true,
}

func letIsTabular(lex *lexer.PeekingLexer) bool {
	first := lex.Peek()
	if first.Type == tIdent && tabularStarts[first.Value] {
		return true
	}
	cp := lex.MakeCheckpoint()
	defer lex.LoadCheckpoint(cp)
	depth := 0
	parenFirst := isOp(first, "(")
	for t := lex.Peek(); !t.EOF(); t = lex.Peek() {
		lex.Next()
		if t.Type != tOp {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case "|":
			if depth == 0 || depth == 1 && parenFirst {
				return true
			}
		case ";":
			return false
		}
	}
	return false
}
