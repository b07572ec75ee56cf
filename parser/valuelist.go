package parser

import "github.com/alecthomas/participle/v2/lexer"

// gValueList is datatable's `[v1, v2, ...]` (a trailing comma allowed).
// It is parsed by hand because in the grammar the values sat in an
// optional group, and participle drops the error of a failed optional
// branch: `datatable(a:long)[1 +]` said `expected "]"` at the 1 instead
// of naming the missing operand after the +.
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
