package parser

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// `[name =] expr` lists (project, extend, summarize, by, print, with)
// are the most frequent clause in real queries. As participle structs each
// element cost two backtracking branches (tuple name, name) and a dozen
// allocations, so they are Parseable hooks that look two tokens ahead.

// gNamedList is `named (, named)*`.
type gNamedList struct{ Items []*NamedExpr }

// Parse implements participle.Parseable.
func (g *gNamedList) Parse(lex *lexer.PeekingLexer) error {
	if !canStartExpr(lex.Peek()) {
		return participle.NextMatch
	}
	for {
		n, err := parseNamed(lex)
		if err != nil {
			return err
		}
		g.Items = append(g.Items, n)
		if !isOp(lex.Peek(), ",") {
			return nil
		}
		lex.Next()
	}
}

// gNamed is a single `[name =] expr` (a make-series aggregation).
type gNamed struct{ N *NamedExpr }

// Parse implements participle.Parseable.
func (g *gNamed) Parse(lex *lexer.PeekingLexer) error {
	if !canStartExpr(lex.Peek()) {
		return participle.NextMatch
	}
	n, err := parseNamed(lex)
	g.N = n
	return err
}

func parseNamed(lex *lexer.PeekingLexer) (*NamedExpr, error) {
	start := lex.Peek()
	n := &NamedExpr{}
	if names, ok := tupleNames(lex); ok {
		n.Names = names
	} else if name, ok, err := assignedName(lex); err != nil {
		return nil, err
	} else if ok {
		n.Name = name
	}
	var e Expr
	if err := parseExprInto(lex, false, &e); err != nil {
		if err == participle.NextMatch {
			return nil, expected("an expression", lex.Peek())
		}
		return nil, err
	}
	n.Expr = e
	n.Sp = Span{Start: posOf(start.Pos), End: e.Span().End}
	return n, nil
}

// nameAt reads a bare or bracket-quoted name at the cursor.
func nameAt(lex *lexer.PeekingLexer) (string, bool) {
	t := lex.Peek()
	if t.Type == tIdent {
		lex.Next()
		return t.Value, true
	}
	if !isOp(t, "[") {
		return "", false
	}
	cp := lex.MakeCheckpoint()
	lex.Next()
	s := lex.Next()
	if s.Type == tString && isOp(lex.Peek(), "]") {
		lex.Next()
		if v, msg := unquote(s.Value); msg == "" {
			return v, true
		}
	}
	lex.LoadCheckpoint(cp)
	return "", false
}

// assignedName consumes `name =` when present.
func assignedName(lex *lexer.PeekingLexer) (string, bool, error) {
	cp := lex.MakeCheckpoint()
	name, ok := nameAt(lex)
	if ok && isOp(lex.Peek(), "=") {
		lex.Next()
		return name, true, nil
	}
	lex.LoadCheckpoint(cp)
	return "", false, nil
}

// tupleNames consumes `(a, b) =` when present.
func tupleNames(lex *lexer.PeekingLexer) ([]string, bool) {
	if !isOp(lex.Peek(), "(") {
		return nil, false
	}
	cp := lex.MakeCheckpoint()
	lex.Next()
	var names []string
	for {
		name, ok := nameAt(lex)
		if !ok {
			break
		}
		names = append(names, name)
		if t := lex.Next(); isOp(t, ")") {
			if isOp(lex.Peek(), "=") {
				lex.Next()
				return names, true
			}
			break
		} else if !isOp(t, ",") {
			break
		}
	}
	lex.LoadCheckpoint(cp)
	return nil, false
}
