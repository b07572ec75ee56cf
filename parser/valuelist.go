package parser

import "github.com/alecthomas/participle/v2/lexer"

// The comma-separated expression lists below are parsed by hand. In the
// grammar their later items sat in a repeated group (`( ',' @@ )*`), and
// participle drops the error of a repetition that fails: a missing
// operand in the second item (`lookup T on x, y +`) came out as
// `expected "|"` at the comma instead of naming the operand after the +.

// gExprList is `e1, e2, ...`: at least one expression.
type gExprList struct{ E []Expr }

// Parse implements participle.Parseable.
func (g *gExprList) Parse(lex *lexer.PeekingLexer) error {
	if !canStartExpr(lex.Peek()) {
		return expected("an expression", lex.Peek())
	}
	p := exprParser{lex: lex}
	for {
		e, err := p.expr()
		if err != nil {
			return err
		}
		g.E = append(g.E, e)
		if !isOp(p.peek(), ",") {
			return nil
		}
		p.next()
	}
}

// gOnList is an optional `on e1, e2, ...` (redact's fields). It is
// not optional in the grammar (an optional group would drop its error
// too): without `on` it matches nothing and leaves E empty.
type gOnList struct{ E []Expr }

// Parse implements participle.Parseable.
func (g *gOnList) Parse(lex *lexer.PeekingLexer) error {
	if !isWord(lex.Peek(), "on") {
		return nil
	}
	lex.Next()
	var list gExprList
	err := list.Parse(lex)
	g.E = list.E
	return err
}

// gValueList is datatable's `[v1, v2, ...]` (a trailing comma allowed),
// by hand for the same reason: the values sat in an optional group, and
// `datatable(a:long)[1 +]` said `expected "]"` at the 1.
type gValueList struct{ E []Expr }

// Parse implements participle.Parseable.
func (g *gValueList) Parse(lex *lexer.PeekingLexer) error {
	p := exprParser{lex: lex}
	if err := p.expect("["); err != nil {
		return err
	}
	for {
		if t := p.peek(); isOp(t, "]") {
			p.next()
			return nil
		}
		if !canStartExpr(p.peek()) {
			return expected(`a value or "]"`, p.peek())
		}
		e, err := p.expr()
		if err != nil {
			return err
		}
		g.E = append(g.E, e)
		switch t := p.peek(); {
		case isOp(t, ","):
			p.next()
		case !isOp(t, "]"):
			return expected(`"," or "]"`, t)
		}
	}
}
