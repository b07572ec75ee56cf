package parser

import (
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// gFastOp parses the most common operators (where, extend, project,
// summarize, sort/order, take/limit, top, count, getschema, distinct) by
// hand, straight into AST nodes. Participle tries the alternatives of gOp
// in order and pays for every failed branch; answering these first, with
// one keyword switch, keeps a typical dashboard query off that path. These
// operators have no participle production, so an error here is the error
// the user sees. Any other keyword returns participle.NextMatch and the
// grammar goes on (a count or getschema with arguments falls through to
// gKeyword, which rejects them where they start).
type gFastOp struct {
	Op Operator
}

// Parse implements participle.Parseable.
func (g *gFastOp) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	if t.Type != tIdent {
		return participle.NextMatch
	}
	kw := *t
	start := posOf(kw.Pos)
	switch kw.Value {
	case "where", "filter":
		lex.Next()
		e, err := fastExpr(lex)
		if err != nil {
			return err
		}
		g.Op = &WhereOp{Sp: Span{Start: start, End: e.Span().End}, Pred: e}
	case "take", "limit":
		lex.Next()
		e, err := fastExpr(lex)
		if err != nil {
			return err
		}
		g.Op = &TakeOp{Sp: Span{Start: start, End: e.Span().End}, Keyword: kw.Value, N: e}
	case "count", "getschema":
		if next := peek2(lex); next != nil && !next.EOF() && !isOp(next, "|") && !isOp(next, ")") && !isOp(next, ";") {
			return participle.NextMatch
		}
		lex.Next()
		sp := Span{Start: start, End: tokEnd(&kw)}
		if kw.Value == "count" {
			g.Op = &CountOp{Sp: sp}
		} else {
			g.Op = &GetSchemaOp{Sp: sp}
		}
	case "extend", "extend-valid", "project":
		lex.Next()
		cols, err := fastNamedList(lex)
		if err != nil {
			return err
		}
		sp := Span{Start: start, End: cols[len(cols)-1].Span().End}
		if kw.Value == "project" {
			g.Op = &ProjectOp{Sp: sp, Cols: cols}
		} else {
			g.Op = &ExtendOp{Sp: sp, Cols: cols, Valid: kw.Value == "extend-valid"}
		}
	case "sort", "order":
		lex.Next()
		if !isWord(lex.Peek(), "by") {
			return expected(`"by" after "`+kw.Value+`"`, lex.Peek())
		}
		lex.Next()
		var keys []*SortKey
		for {
			k, err := fastSortKey(lex)
			if err != nil {
				return err
			}
			keys = append(keys, k)
			if !isOp(lex.Peek(), ",") {
				break
			}
			lex.Next()
		}
		g.Op = &SortOp{Sp: Span{Start: start, End: keys[len(keys)-1].Sp.End}, Keyword: kw.Value, Keys: keys}
	case "top":
		lex.Next()
		n, err := fastExpr(lex)
		if err != nil {
			return err
		}
		if !isWord(lex.Peek(), "by") {
			return expected(`"by" after the row count of top`, lex.Peek())
		}
		lex.Next()
		k, err := fastSortKey(lex)
		if err != nil {
			return err
		}
		g.Op = &TopOp{Sp: Span{Start: start, End: k.Sp.End}, N: n, Key: k}
	case "distinct":
		lex.Next()
		var cols []Expr
		for {
			e, err := fastExpr(lex)
			if err != nil {
				return err
			}
			cols = append(cols, e)
			if !isOp(lex.Peek(), ",") {
				break
			}
			lex.Next()
		}
		g.Op = &DistinctOp{Sp: Span{Start: start, End: cols[len(cols)-1].Span().End}, Cols: cols}
	case "summarize":
		lex.Next()
		return g.summarize(lex, start, &kw)
	default:
		return participle.NextMatch
	}
	return nil
}

// summarize parses `summarize [aggs] [by keys]`, rejecting an entry that
// calls no aggregation, as the grammar's lowering does.
func (g *gFastOp) summarize(lex *lexer.PeekingLexer, start Pos, kw *lexer.Token) error {
	op := &SummarizeOp{}
	end := tokEnd(kw)
	if !isWord(lex.Peek(), "by") && canStartExpr(lex.Peek()) {
		aggs, err := fastNamedList(lex)
		if err != nil {
			return err
		}
		for _, a := range aggs {
			if !containsCall(a.Expr) {
				return &Error{Pos: a.Expr.Span().Start, Msg: "expected an aggregation such as count() or avg(x) in summarize, found " + quoteText(FormatExpr(a.Expr))}
			}
		}
		op.Aggs = aggs
		end = aggs[len(aggs)-1].Span().End
	}
	if isWord(lex.Peek(), "by") {
		lex.Next()
		by, err := fastNamedList(lex)
		if err != nil {
			return err
		}
		op.By = by
		end = by[len(by)-1].Span().End
	}
	op.Sp = Span{Start: start, End: end}
	g.Op = op
	return nil
}

// peek2 returns the token after the next one without consuming either.
func peek2(lex *lexer.PeekingLexer) *lexer.Token {
	cp := lex.MakeCheckpoint()
	lex.Next()
	t := *lex.Peek()
	lex.LoadCheckpoint(cp)
	return &t
}

// fastExpr parses one expression or says that one was expected.
func fastExpr(lex *lexer.PeekingLexer) (Expr, error) {
	var e Expr
	if err := parseExprInto(lex, false, &e); err != nil {
		if err == participle.NextMatch {
			return nil, expected("an expression", lex.Peek())
		}
		return nil, err
	}
	return e, nil
}

// fastNamedList parses `[name =] expr, ...` (at least one).
func fastNamedList(lex *lexer.PeekingLexer) ([]*NamedExpr, error) {
	if !canStartExpr(lex.Peek()) {
		return nil, expected("an expression", lex.Peek())
	}
	var l gNamedList
	if err := l.Parse(lex); err != nil {
		return nil, err
	}
	return l.Items, nil
}

// fastSortKey parses `expr [asc|desc] [nulls first|last]`.
func fastSortKey(lex *lexer.PeekingLexer) (*SortKey, error) {
	e, err := fastExpr(lex)
	if err != nil {
		return nil, err
	}
	k := &SortKey{Expr: e, Desc: true}
	end := e.Span().End
	if t := lex.Peek(); isWord(t, "asc") || isWord(t, "desc") {
		k.Dir, k.Desc = t.Value, t.Value != "asc"
		end = tokEnd(t)
		lex.Next()
	}
	if isWord(lex.Peek(), "nulls") {
		lex.Next()
		t := lex.Peek()
		if !isWord(t, "first") && !isWord(t, "last") {
			return nil, expected(`"first" or "last" after "nulls"`, t)
		}
		k.Nulls = t.Value
		end = tokEnd(t)
		lex.Next()
	}
	k.Sp = Span{Start: e.Span().Start, End: end}
	return k, nil
}

// gFastSource reads the most common source, a dataset or let name alone
// before the first pipe (`logs |`, `['sample-http-logs'] |`), without
// trying the grammar's other source alternatives first.
type gFastSource struct {
	Ref *TableRef
}

// sourceKeywords start the other source forms.
var sourceKeywords = map[string]bool{"datatable": true, "print": true, "externaldata": true, "union": true, "search": true}

// endsSource reports whether t may follow a source.
func endsSource(t *lexer.Token) bool {
	return t.EOF() || isOp(t, "|") || isOp(t, ")") || isOp(t, ";")
}

// Parse implements participle.Parseable.
func (g *gFastSource) Parse(lex *lexer.PeekingLexer) error {
	t := *lex.Peek()
	switch {
	case t.Type == tIdent && !sourceKeywords[t.Value]:
		if !endsSource(peek2(lex)) {
			return participle.NextMatch
		}
		lex.Next()
		g.Ref = &TableRef{Sp: Span{Start: posOf(t.Pos), End: tokEnd(&t)}, Name: t.Value, Pattern: strings.Contains(t.Value, "*")}
		return nil
	case isOp(&t, "["):
		cp := lex.MakeCheckpoint()
		lex.Next()
		s := *lex.Peek()
		if s.Type != tString {
			lex.LoadCheckpoint(cp)
			return participle.NextMatch
		}
		lex.Next()
		end := *lex.Peek()
		if !isOp(&end, "]") || !endsSource(peek2(lex)) {
			lex.LoadCheckpoint(cp)
			return participle.NextMatch
		}
		lex.Next()
		name, msg := unquote(s.Value)
		if msg != "" {
			return errAt(&s, msg)
		}
		g.Ref = &TableRef{Sp: Span{Start: posOf(t.Pos), End: tokEnd(&end)}, Name: name, Quoted: true, Pattern: strings.Contains(name, "*")}
		return nil
	}
	return participle.NextMatch
}

// Parse implements participle.Parseable for a whole pipeline.
func (g *gPipeline) Parse(lex *lexer.PeekingLexer) error {
	first := *lex.Peek()
	var fs gFastSource
	switch err := fs.Parse(lex); err {
	case nil:
		g.Source.Fast = &fs
	case participle.NextMatch:
		if first.Type == tIdent && sourceKeywords[first.Value] {
			// Through gSource's alternatives a print (datatable, ...)
			// that fails is then read as a table named "print" and the
			// error lands on the token after it: `print 1 +` said
			// 1:7 `expected "|"`, not 1:10, where the operand is missing.
			kw, err := keywordParser.ParseFromLexer(lex, participle.AllowTrailing(true))
			if err != nil {
				return err
			}
			g.Source = gSource{Datatable: kw.Datatable, Print: kw.Print, External: kw.External, Union: kw.Union, Search: kw.Search}
			break
		}
		src, err := sourceParser.ParseFromLexer(lex, participle.AllowTrailing(true))
		if err != nil {
			if lex.Peek().Pos == first.Pos {
				return participle.NextMatch
			}
			return err
		}
		g.Source = *src
	default:
		return err
	}
	g.Tokens = []lexer.Token{first}
	for isOp(lex.Peek(), "|") {
		lex.Next()
		var fo gFastOp
		switch err := fo.Parse(lex); err {
		case nil:
			g.Ops = append(g.Ops, gOp{Fast: &fo})
			continue
		case participle.NextMatch:
		default:
			return err
		}
		start := lex.MakeCheckpoint()
		op, err := opParser.ParseFromLexer(lex, participle.AllowTrailing(true))
		if err != nil {
			return err
		}
		if err := deeperError(lex, start); err != nil {
			return err
		}
		g.Ops = append(g.Ops, *op)
	}
	return nil
}

// deeperError looks again at an operator that parsed but left a token
// that cannot follow it. The grammar's repeated and optional groups
// (`mv-expand a, b +`, make-series' aggregations) drop the error of an
// item that failed and stop before it, so the junk seems to be at the
// comma. Parsed again without trailing tokens, participle reports the
// deepest error it met; when that is one of ours and lies past the
// junk, it names the real fault. The lexer is left where it was.
func deeperError(lex *lexer.PeekingLexer, start lexer.Checkpoint) error {
	t := lex.Peek()
	if t.EOF() || isOp(t, "|") || isOp(t, ")") {
		return nil
	}
	end := lex.MakeCheckpoint()
	defer lex.LoadCheckpoint(end)
	lex.LoadCheckpoint(start)
	_, err := opParser.ParseFromLexer(lex)
	if e, ok := err.(*Error); ok && e.Pos.Offset > t.Pos.Offset {
		return e
	}
	return nil
}
