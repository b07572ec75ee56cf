package parser

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// maxErrors bounds how many errors one parse reports; later ones are
// mostly consequences of the first.
const maxErrors = 10

// maxNesting bounds bracket nesting so that recursion depth, and so stack
// use, is bounded for any input.
const maxNesting = 200

func itoa(n int) string { return strconv.Itoa(n) }

// Parse parses a whole APL query: `set` and `let` statements, then one
// tabular expression. The error, when not nil, is an ErrorList holding
// one error per statement that failed (statements are parsed
// independently, so one bad `let` does not hide an error in the body).
func Parse(src string) (q *Query, err error) {
	defer recoverInternal(&err)
	if len(src) > MaxQueryBytes {
		return nil, errTooLong(src)
	}
	toks, errs := scan(src)
	if len(errs) == 0 {
		errs = checkBrackets(toks)
	}
	if len(errs) == 0 {
		errs = checkStages(toks)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	q = &Query{}
	b := queryBuilder{q: q}
	for _, chunk := range splitStatements(toks) {
		b.statement(chunk)
		if len(b.errs) >= maxErrors {
			break
		}
	}
	if len(b.errs) == 0 && q.Body == nil {
		eof := &toks[len(toks)-1]
		msg := "expected a query such as `logs | take 10`, found end of input"
		if len(q.Stmts) == 0 {
			msg = "empty query: expected a dataset name or a tabular expression"
		}
		b.errs = append(b.errs, errAt(eof, msg))
	}
	if len(b.errs) > 0 {
		return nil, b.errs
	}
	if e := checkQuery(q); e != nil {
		return nil, ErrorList{e}
	}
	q.Sp = Span{Start: q.Body.Sp.End, End: q.Body.Sp.End}
	if len(q.Stmts) > 0 {
		q.Sp.Start = q.Stmts[0].Span().Start
	} else {
		q.Sp.Start = q.Body.Sp.Start
	}
	return q, nil
}

// queryBuilder assembles statements into a Query, remembering scalar let
// names so that `let b = a;` stays scalar when a is.
type queryBuilder struct {
	q       *Query
	scalars map[string]bool
	errs    ErrorList
}

func (b *queryBuilder) statement(chunk []lexer.Token) {
	pl, err := lexer.Upgrade(&sliceLexer{toks: chunk})
	if err != nil {
		b.errs = append(b.errs, convertErr(err, chunk))
		return
	}
	g, err := stmtParser.ParseFromLexer(pl)
	if err != nil {
		b.errs = append(b.errs, convertErr(err, chunk))
		return
	}
	if b.q.Body != nil {
		b.errs = append(b.errs, errAt(&chunk[0], "unexpected statement after the query: a query has one tabular expression, after its let and set statements"))
		return
	}
	switch {
	case g.Let != nil:
		err = b.let(g.Let)
	case g.Set != nil:
		b.q.Stmts = append(b.q.Stmts, &SetStmt{Sp: spanOf(g.Set.Tokens), Name: g.Set.Name, Value: g.Set.Value.E})
	default:
		b.q.Body, err = lowerPipeline(g.Body)
	}
	if err != nil {
		b.errs = append(b.errs, convertErr(err, chunk))
	}
}

func (b *queryBuilder) let(g *gLet) error {
	name, _, err := lowerName(&g.Name)
	if err != nil {
		return err
	}
	st := &LetStmt{Sp: spanOf(g.Tokens), Name: name}
	switch {
	case g.Value.Pipe != nil:
		st.Tabular, err = lowerPipeline(g.Value.Pipe)
	case b.isTableName(g.Value.Expr):
		id := g.Value.Expr.(*Ident)
		ref := &TableRef{Sp: id.Sp, Name: id.Name, Quoted: id.Quoted}
		st.Tabular = &Pipeline{Sp: id.Sp, Source: ref}
	default:
		st.Expr = g.Value.Expr
		if b.scalars == nil {
			b.scalars = map[string]bool{}
		}
		b.scalars[name] = true
	}
	b.q.Stmts = append(b.q.Stmts, st)
	return err
}

// isTableName reports whether a lone name on the right of let refers to
// a table: a quoted name always does, a bare one unless it is a scalar let.
func (b *queryBuilder) isTableName(e Expr) bool {
	id, ok := e.(*Ident)
	return ok && (id.Quoted || !b.scalars[id.Name])
}

// ParseExpr parses a single scalar expression, as used for virtual fields.
func ParseExpr(src string) (e Expr, err error) {
	defer recoverInternal(&err)
	if len(src) > MaxQueryBytes {
		return nil, errTooLong(src)
	}
	toks, errs := scan(src)
	if len(errs) == 0 {
		errs = checkBrackets(toks)
	}
	if len(errs) == 0 {
		errs = checkStages(toks)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	pl, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil {
		return nil, ErrorList{convertErr(err, toks)}
	}
	if !canStartExpr(pl.Peek()) {
		return nil, ErrorList{expected("an expression", pl.Peek())}
	}
	p := exprParser{lex: pl}
	e, err = p.expr()
	if err != nil {
		return nil, ErrorList{convertErr(err, toks)}
	}
	if t := pl.Peek(); !t.EOF() {
		if isOp(t, "=") {
			return nil, ErrorList{errAt(t, `unexpected "=" after an expression: use "==" to compare`)}
		}
		return nil, ErrorList{expected("an operator or end of expression", t)}
	}
	if err := checkTree(e); err != nil {
		return nil, ErrorList{err}
	}
	return e, nil
}

func recoverInternal(err *error) {
	if r := recover(); r != nil {
		*err = ErrorList{{Pos: Pos{Line: 1, Col: 1}, Msg: fmt.Sprintf("internal parser error: %v", r)}}
	}
}

// splitStatements cuts the token stream at top-level `;`. Each chunk ends
// with an EOF token placed where the `;` was (the slice shares storage
// with toks). Empty statements are dropped.
func splitStatements(toks []lexer.Token) [][]lexer.Token {
	var out [][]lexer.Token
	depth, start := 0, 0
	for i := range toks {
		t := &toks[i]
		if t.Type == tOp {
			switch t.Value {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
			}
		}
		if t.EOF() || (depth == 0 && isOp(t, ";")) {
			// The EOF keeps the ";" text so errors can say what was found.
			*t = lexer.Token{Type: lexer.EOF, Value: t.Value, Pos: t.Pos}
			if i > start {
				out = append(out, toks[start:i+1])
			}
			start = i + 1
		}
	}
	return out
}

var closerOf = map[string]string{"(": ")", "[": "]", "{": "}"}

// checkBrackets reports unclosed and unmatched brackets at the bracket
// itself, which is more useful than the end-of-input error the grammar
// would give, and bounds nesting depth.
func checkBrackets(toks []lexer.Token) ErrorList {
	var stack []*lexer.Token
	for i := range toks {
		t := &toks[i]
		if t.Type != tOp {
			continue
		}
		switch t.Value {
		case "(", "[", "{":
			if len(stack) >= maxNesting {
				return ErrorList{errAt(t, "brackets nested deeper than "+itoa(maxNesting)+" levels")}
			}
			stack = append(stack, t)
		case ")", "]", "}":
			if len(stack) == 0 {
				return ErrorList{errAt(t, "unexpected "+quoteText(t.Value)+" without a matching opening bracket")}
			}
			open := stack[len(stack)-1]
			if closerOf[open.Value] != t.Value {
				return ErrorList{errAt(t, "expected "+quoteText(closerOf[open.Value])+" to close "+quoteText(open.Value)+" at "+posText(open)+", found "+quoteText(t.Value))}
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		open := stack[len(stack)-1]
		return ErrorList{errAt(open, "unclosed "+quoteText(open.Value)+": expected "+quoteText(closerOf[open.Value])+" before end of input")}
	}
	return nil
}

func posText(t *lexer.Token) string { return itoa(t.Pos.Line) + ":" + itoa(t.Pos.Column) }

// convertErr turns a participle error into an *Error with a message that
// names what was expected and what was found.
func convertErr(err error, chunk []lexer.Token) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		return unexpectedToken(ute, chunk)
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		return &Error{Pos: posOf(pe.Position()), Msg: pe.Message()}
	}
	return &Error{Pos: posOf(chunk[0].Pos), Msg: err.Error()}
}

// operatorWords are the tabular operator keywords, for "missing |" and
// "unknown operator" diagnoses.
var operatorWords = map[string]bool{
	"where": true, "filter": true, "project": true, "project-away": true, "project-keep": true,
	"project-rename": true, "project-reorder": true, "extend": true, "extend-valid": true,
	"summarize": true, "sort": true, "order": true, "top": true, "take": true, "limit": true,
	"count": true, "distinct": true, "getschema": true, "sample": true, "search": true,
	"parse": true, "parse-kv": true, "parse-where": true, "mv-expand": true, "join": true,
	"lookup": true, "union": true, "make-series": true, "redact": true,
}

// unsupportedSources are KQL operators that start a statement and that
// APL does not have, with what to write instead.
var unsupportedSources = map[string]string{
	"range": "the range operator is not supported: print x = range(start, stop, step) | mv-expand x gives the same rows (at most 1,048,576)",
	"find":  "the find operator is not supported: use search",
}

func unexpectedToken(ute *participle.UnexpectedTokenError, chunk []lexer.Token) *Error {
	t := &ute.Unexpected
	var prev *lexer.Token
	for i := range chunk {
		if chunk[i].Pos.Offset >= t.Pos.Offset {
			if i > 0 {
				prev = &chunk[i-1]
			}
			break
		}
	}
	afterPipe := prev != nil && isOp(prev, "|")
	switch {
	case afterPipe && t.Type == tIdent && operatorWords[strings.ToLower(t.Value)] && !operatorWords[t.Value]:
		return errAt(t, "unknown operator "+quoteText(t.Value)+": operator names are lower case ("+strings.ToLower(t.Value)+")")
	case afterPipe && t.Type == tIdent && !operatorWords[t.Value]:
		return errAt(t, "unknown operator "+quoteText(t.Value)+" after \"|\"")
	case afterPipe:
		return expected("an operator after \"|\"", t)
	case t.Type == tIdent && operatorWords[t.Value] && prev != nil:
		return errAt(t, "missing \"|\" before operator "+quoteText(t.Value))
	case prev != nil && prev == &chunk[0] && prev.Type == tIdent && unsupportedSources[prev.Value] != "":
		// `range x from 1 to 10 step 1` reads as the table "range"
		// followed by junk; say what the user meant instead.
		return errAt(prev, unsupportedSources[prev.Value])
	}
	want := expectation(ute)
	if want == "" {
		want = `"|" or end of statement`
	}
	return expected(want, t)
}

// expectation extracts and tidies participle's "(expected ...)" text:
// grammar type names become words.
func expectation(ute *participle.UnexpectedTokenError) string {
	msg := ute.Message()
	i := strings.Index(msg, "(expected ")
	if i < 0 {
		return ""
	}
	want := strings.TrimSuffix(msg[i+len("(expected "):], ")")
	return friendlyNames.Replace(firstAlternative(want))
}

// firstAlternative keeps the first element of an EBNF sequence, which is
// the token that was actually missing.
func firstAlternative(ebnf string) string {
	depth := 0
	inQuote := false
	for i, c := range ebnf {
		switch {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ' ' && depth == 0:
			return ebnf[:i]
		}
	}
	return ebnf
}

// friendlyNames turns grammar type names into words. participle names a
// type either as declared (gParseItem) or capitalised (GParseItem), so
// both spellings are replaced.
var friendlyNames = strings.NewReplacer(bothCases(
	"gNamedList", "an expression", "gNamed", "an expression", "gExpr", "an expression", "gSearchExpr", "a search predicate",
	"gSortKey", "a sort key", "gOp", "an operator", "gPattern", "a column name",
	"gName", "a name", "gColumnDecl", "a column declaration name:type", "gParseItem", "a parse pattern",
	"gTabularArg", "a table name or (subquery)", "gUnionTable", "a table name or (subquery)",
	"gSeriesAgg", "an aggregation", "gRenamePair", "new = old", "gReorderCol", "a column name",
	"gMvCol", "a column", "gLetValue", "an expression or tabular expression", "gSource", "a data source",
	"gPipeline", "a tabular expression", "gParen", "(", "gStatement", "a statement",
	"gRedactOpt", "a redact option", "gUnionOpt", "a union option",
)...)

func bothCases(pairs ...string) []string {
	out := append([]string(nil), pairs...)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, strings.ToUpper(pairs[i][:1])+pairs[i][1:], pairs[i+1])
	}
	return out
}
