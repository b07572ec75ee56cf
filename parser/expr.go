package parser

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Scalar expressions are parsed by precedence climbing behind participle's
// Parseable hook: expressing KQL's nine precedence levels as nested
// participle structs costs a struct allocation and a branch per level for
// every operand, which is most of a query's tokens.

// Binding powers, loosest first (apl.md §1.5).
const (
	precNone = iota
	precOr
	precAnd
	precEq // == != in !in in~ !in~ has_any has_all between !between
	precRel
	precAdd
	precMul
	precStr // has, contains, =~, matches regex, ...
	precUnary
	precPostfix
	precPrimary
)

// maxUnaryDepth bounds `- - - x` recursion; bracket nesting is bounded
// separately by checkNesting before parsing starts.
const maxUnaryDepth = 256

// stringOps are the word operators of the string level; each also has a
// `!` negated form.
var stringOps = map[string]bool{
	"contains": true, "contains_cs": true, "startswith": true, "startswith_cs": true,
	"endswith": true, "endswith_cs": true, "has": true, "has_cs": true,
	"hasprefix": true, "hasprefix_cs": true, "hassuffix": true, "hassuffix_cs": true,
}

// opKind says how the right-hand side of an operator is parsed.
type opKind uint8

const (
	kBinary opKind = iota
	kIn
	kBetween
)

type opInfo struct {
	name  string
	prec  int
	kind  opKind
	ntoks int
}

// gExpr is a scalar expression in the participle grammar.
type gExpr struct{ E Expr }

// Parse implements participle.Parseable.
func (g *gExpr) Parse(lex *lexer.PeekingLexer) error { return parseExprInto(lex, false, &g.E) }

// gSearchExpr is search's predicate, where `field:"term"` is allowed.
type gSearchExpr struct{ E Expr }

// Parse implements participle.Parseable.
func (g *gSearchExpr) Parse(lex *lexer.PeekingLexer) error { return parseExprInto(lex, true, &g.E) }

func parseExprInto(lex *lexer.PeekingLexer, search bool, out *Expr) error {
	if !canStartExpr(lex.Peek()) {
		return participle.NextMatch
	}
	p := exprParser{lex: lex, search: search}
	e, err := p.expr()
	if err != nil {
		return err
	}
	if t := lex.Peek(); isOp(t, "=") {
		return errAt(t, `unexpected "=" after an expression: use "==" to compare`)
	}
	*out = e
	return nil
}

func canStartExpr(t *lexer.Token) bool {
	switch t.Type {
	case tIdent, tInt, tReal, tTimespan, tString, tRawLit:
		return true
	case tOp:
		switch t.Value {
		case "(", "[", "-", "+", "*":
			return true
		}
	}
	return false
}

func isOp(t *lexer.Token, v string) bool      { return t.Type == tOp && t.Value == v }
func isWord(t *lexer.Token, v string) bool    { return t.Type == tIdent && t.Value == v }
func errAt(t *lexer.Token, msg string) *Error { return &Error{Pos: posOf(t.Pos), Msg: msg} }

// describe names a token for "found ..." in error messages.
func describe(t *lexer.Token) string {
	if t.EOF() {
		if t.Value == ";" {
			return `";"`
		}
		return "end of input"
	}
	return quoteText(t.Value)
}

func expected(what string, t *lexer.Token) *Error {
	return errAt(t, "expected "+what+", found "+describe(t))
}

// exprParser parses one expression from a participle token stream.
type exprParser struct {
	lex    *lexer.PeekingLexer
	last   *lexer.Token
	search bool
	unary  int
}

func (p *exprParser) peek() *lexer.Token { return p.lex.Peek() }

func (p *exprParser) next() *lexer.Token {
	p.last = p.lex.Next()
	return p.last
}

// peek2 returns the token after the next one.
func (p *exprParser) peek2() *lexer.Token {
	cp := p.lex.MakeCheckpoint()
	p.lex.Next()
	t := p.lex.Peek()
	p.lex.LoadCheckpoint(cp)
	return t
}

func (p *exprParser) expect(v string) error {
	t := p.peek()
	if !isOp(t, v) {
		return expected(quoteText(v), t)
	}
	p.next()
	return nil
}

func (p *exprParser) end() Pos { return tokEnd(p.last) }

func (p *exprParser) expr() (Expr, error) { return p.binary(precOr) }

func (p *exprParser) binary(minPrec int) (Expr, error) {
	left, err := p.unaryExpr()
	if err != nil {
		return nil, err
	}
	for chain := 0; ; chain++ {
		op := p.binop()
		if op.prec == precNone || op.prec < minPrec {
			return left, nil
		}
		if chain == MaxDepth {
			// checkQuery would refuse the tree for its depth;
			// stopping here saves building the rest of the chain.
			return nil, errDepth(left.Span().Start)
		}
		opTok := p.peek()
		for i := 0; i < op.ntoks; i++ {
			p.next()
		}
		switch op.kind {
		case kIn:
			left, err = p.inRest(left, op.name)
		case kBetween:
			left, err = p.betweenRest(left, op.name)
		default:
			if t := p.peek(); !canStartExpr(t) {
				// Name the operator left without its right side.
				return nil, errAt(t, "expected an operand after "+quoteText(op.name)+", found "+describe(t))
			}
			var right Expr
			right, err = p.binary(op.prec + 1)
			if err == nil {
				left = &BinaryExpr{Sp: Span{Start: left.Span().Start, End: right.Span().End}, Op: op.name, OpPos: posOf(opTok.Pos), L: left, R: right}
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// binop recognises the operator at the cursor without consuming it. Word
// operators that need a parenthesised right side (in, has_any, between)
// are operators only when a `(` follows, so `on _time in range(...)` in
// make-series is left to the grammar.
func (p *exprParser) binop() opInfo {
	t := p.peek()
	switch t.Type {
	case tIdent:
		return p.wordOp(t)
	case tOp:
		return p.symbolOp(t)
	}
	return opInfo{}
}

func (p *exprParser) wordOp(t *lexer.Token) opInfo {
	switch t.Value {
	case "or":
		return opInfo{"or", precOr, kBinary, 1}
	case "and":
		return opInfo{"and", precAnd, kBinary, 1}
	case "in", "has_any", "has_any_cs", "has_all":
		if isOp(p.peek2(), "(") {
			return opInfo{t.Value, precEq, kIn, 1}
		}
	case "between":
		if isOp(p.peek2(), "(") {
			return opInfo{"between", precEq, kBetween, 1}
		}
	case "matches":
		if isWord(p.peek2(), "regex") {
			return opInfo{"matches regex", precStr, kBinary, 2}
		}
	default:
		if stringOps[t.Value] {
			return opInfo{t.Value, precStr, kBinary, 1}
		}
	}
	return opInfo{}
}

func (p *exprParser) symbolOp(t *lexer.Token) opInfo {
	v := t.Value
	switch v {
	case "==", "!=":
		return opInfo{v, precEq, kBinary, 1}
	case "<>":
		return opInfo{"!=", precEq, kBinary, 1}
	case "<", "<=", ">", ">=":
		return opInfo{v, precRel, kBinary, 1}
	case "+", "-":
		return opInfo{v, precAdd, kBinary, 1}
	case "*", "/", "%":
		return opInfo{v, precMul, kBinary, 1}
	case "=~", "!~":
		return opInfo{v, precStr, kBinary, 1}
	case "!in", "in~", "!in~":
		if isOp(p.peek2(), "(") {
			return opInfo{v, precEq, kIn, 1}
		}
	case "!between":
		if isOp(p.peek2(), "(") {
			return opInfo{v, precEq, kBetween, 1}
		}
	case "!matches":
		if isWord(p.peek2(), "regex") {
			return opInfo{"!matches regex", precStr, kBinary, 2}
		}
	case ":":
		if p.search {
			return opInfo{":", precStr, kBinary, 1}
		}
	default:
		if len(v) > 1 && v[0] == '!' && stringOps[v[1:]] {
			return opInfo{v, precStr, kBinary, 1}
		}
	}
	return opInfo{}
}

// inRest parses `(a, b, ...)` or `(T | ...)` after an in-family operator.
func (p *exprParser) inRest(x Expr, op string) (Expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	in := &InExpr{Op: op, X: x}
	if p.subqueryAhead() {
		sub, err := p.subquery()
		if err != nil {
			return nil, err
		}
		in.List = []Expr{sub}
	} else {
		list, err := p.exprList(")")
		if err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, expected("a value in the list", p.last)
		}
		in.List = list
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	in.Sp = Span{Start: x.Span().Start, End: p.end()}
	return in, nil
}

// subqueryAhead reports whether the parenthesised text at the cursor is a
// tabular expression: it holds a `|` at its own nesting level or starts
// with a tabular source keyword.
func (p *exprParser) subqueryAhead() bool {
	t := p.peek()
	if t.Type == tIdent && (t.Value == "datatable" || t.Value == "print") {
		return true
	}
	cp := p.lex.MakeCheckpoint()
	defer p.lex.LoadCheckpoint(cp)
	depth := 0
	for t := p.lex.Peek(); !t.EOF(); t = p.lex.Peek() {
		if t.Type == tOp {
			switch t.Value {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					return false
				}
				depth--
			case "|":
				if depth == 0 {
					return true
				}
			}
		}
		p.lex.Next()
	}
	return false
}

func (p *exprParser) subquery() (Expr, error) {
	g, err := pipeParser.ParseFromLexer(p.lex, participle.AllowTrailing(true))
	if err != nil {
		return nil, err
	}
	pipe, err := lowerPipeline(g)
	if err != nil {
		return nil, err
	}
	return &SubqueryExpr{Sp: pipe.Sp, Pipe: pipe}, nil
}

func (p *exprParser) betweenRest(x Expr, op string) (Expr, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	lo, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expect(".."); err != nil {
		return nil, err
	}
	hi, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	return &BetweenExpr{Sp: Span{Start: x.Span().Start, End: p.end()}, Not: op == "!between", X: x, Lo: lo, Hi: hi}, nil
}

// exprList parses comma-separated expressions up to (not including) the
// closing token.
func (p *exprParser) exprList(closing string) ([]Expr, error) {
	var list []Expr
	if isOp(p.peek(), closing) {
		return nil, nil
	}
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		list = append(list, e)
		t := p.peek()
		if !isOp(t, ",") {
			if !isOp(t, closing) {
				return nil, expected(`"," or "`+closing+`"`, t)
			}
			return list, nil
		}
		p.next()
	}
}

func (p *exprParser) unaryExpr() (Expr, error) {
	t := p.peek()
	if !isOp(t, "-") && !isOp(t, "+") {
		return p.postfix()
	}
	if p.unary >= maxUnaryDepth {
		return nil, errAt(t, "expression nested too deeply")
	}
	p.unary++
	defer func() { p.unary-- }()
	p.next()
	if n := p.peek(); n.Type == tInt || n.Type == tReal || n.Type == tTimespan {
		p.next()
		return numberLit(t, n)
	}
	x, err := p.unaryExpr()
	if err != nil {
		return nil, err
	}
	return &UnaryExpr{Sp: Span{Start: posOf(t.Pos), End: x.Span().End}, Op: t.Value, X: x}, nil
}

func (p *exprParser) postfix() (Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for chain := 0; ; chain++ {
		t := p.peek()
		if chain == MaxDepth && (isOp(t, ".") || isOp(t, "[")) {
			return nil, errDepth(x.Span().Start) // as in binary
		}
		switch {
		case isOp(t, "."):
			p.next()
			n := p.peek()
			if isOp(n, "[") {
				// $left.['service.name']: a quoted member name.
				q, err := p.quotedName()
				if err != nil {
					return nil, err
				}
				x = &MemberExpr{Sp: Span{Start: x.Span().Start, End: p.end()}, X: x, Name: q.(*Ident).Name}
				continue
			}
			if n.Type != tIdent {
				return nil, expected("a member name after \".\"", n)
			}
			p.next()
			x = &MemberExpr{Sp: Span{Start: x.Span().Start, End: p.end()}, X: x, Name: n.Value}
		case isOp(t, "["):
			p.next()
			var err error
			if x, err = p.indexOrSlice(x); err != nil {
				return nil, err
			}
		default:
			return x, nil
		}
	}
}

// indexOrSlice parses what follows `x[`: an index `i]`, or a slice
// `lo:hi]` where either bound may be left out.
func (p *exprParser) indexOrSlice(x Expr) (Expr, error) {
	var lo Expr
	if !isOp(p.peek(), ":") {
		idx, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !isOp(p.peek(), ":") {
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			return &IndexExpr{Sp: Span{Start: x.Span().Start, End: p.end()}, X: x, Index: idx}, nil
		}
		lo = idx
	}
	p.next() // :
	var hi Expr
	if !isOp(p.peek(), "]") {
		var err error
		if hi, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	return &SliceExpr{Sp: Span{Start: x.Span().Start, End: p.end()}, X: x, Lo: lo, Hi: hi}, nil
}

func (p *exprParser) primary() (Expr, error) {
	t := p.peek()
	switch t.Type {
	case tInt, tReal, tTimespan:
		p.next()
		return numberLit(nil, t)
	case tString:
		p.next()
		return stringLit(t)
	case tRawLit:
		p.next()
		return rawLit(t)
	case tIdent:
		return p.identPrimary()
	case tOp:
		switch t.Value {
		case "(":
			p.next()
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			return e, p.expect(")")
		case "[":
			return p.quotedName()
		case "*":
			p.next()
			return &StarExpr{Sp: tokSpan(t)}, nil
		}
	}
	return nil, expected("an expression", t)
}

// quotedName parses `['name']` or `["name"]`.
func (p *exprParser) quotedName() (Expr, error) {
	start := p.next()
	s := p.peek()
	if s.Type != tString {
		return nil, expected("a quoted name after \"[\"", s)
	}
	p.next()
	name, msg := unquote(s.Value)
	if msg != "" {
		return nil, errAt(s, msg)
	}
	if err := p.expect("]"); err != nil {
		return nil, err
	}
	return &Ident{Sp: Span{Start: posOf(start.Pos), End: p.end()}, Name: name, Quoted: true}, nil
}

func (p *exprParser) identPrimary() (Expr, error) {
	t := p.next()
	switch t.Value {
	case "true", "TRUE", "True", "false", "FALSE", "False":
		return &Literal{Sp: tokSpan(t), Kind: LitBool, Type: boolType, Value: t.Value[0] == 't' || t.Value[0] == 'T', Raw: t.Value}, nil
	}
	if !isOp(p.peek(), "(") {
		if t.Value == "null" {
			return &Literal{Sp: tokSpan(t), Kind: LitNull, Raw: t.Value}, nil
		}
		return &Ident{Sp: tokSpan(t), Name: t.Value}, nil
	}
	if typ, ok := literalTypes[t.Value]; ok {
		return p.typedLiteral(t, typ)
	}
	return p.call(t)
}

func (p *exprParser) call(name *lexer.Token) (Expr, error) {
	p.next() // (
	c := &CallExpr{Name: name.Value}
	if isOp(p.peek(), ")") {
		p.next()
		c.Sp = Span{Start: posOf(name.Pos), End: p.end()}
		return c, nil
	}
	for {
		arg, err := p.arg(name.Value == "typeof")
		if err != nil {
			return nil, err
		}
		c.Args = append(c.Args, arg)
		t := p.next()
		if isOp(t, ")") {
			break
		}
		if !isOp(t, ",") {
			return nil, expected(`"," or ")" in the arguments of `+name.Value+"()", t)
		}
	}
	c.Sp = Span{Start: posOf(name.Pos), End: p.end()}
	return c, nil
}

// arg parses one call argument: `name = expr`, a type name inside
// typeof(...), or an expression.
func (p *exprParser) arg(typeArg bool) (Expr, error) {
	t := p.peek()
	if t.Type == tIdent && isOp(p.peek2(), "=") {
		p.next()
		p.next()
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &NamedArg{Sp: Span{Start: posOf(t.Pos), End: v.Span().End}, Name: t.Value, Value: v}, nil
	}
	if typeArg {
		if t.Type != tIdent {
			return nil, expected("a type name in typeof(...)", t)
		}
		typ, ok := parseTypeName(t.Value)
		if !ok {
			return nil, errAt(t, "unknown type "+quoteText(t.Value))
		}
		p.next()
		return &TypeExpr{Sp: tokSpan(t), Type: typ}, nil
	}
	return p.expr()
}
