package parser

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar. Each g* struct is one production; lower.go turns
// the parse tree into the AST. Keywords are matched by value on Ident
// tokens, so they stay usable as column names. Scalar expressions
// (gExpr) and column patterns (gPattern) are Parseable hooks.

// lookahead is how far an optional clause may progress before failing
// and still be backtracked; the longest such prefix is a tuple name
// `(a, b, c) =` in summarize.
const lookahead = 8

// The parsers are built once, in init, after the lexer's symbol table
// exists (package variables initialise before init functions run).
var (
	stmtParser   *participle.Parser[gStatement]
	pipeParser   *participle.Parser[gPipeline]
	sourceParser *participle.Parser[gSource]
	// keywordParser parses a source that starts with its keyword
	// (gPipeline.Parse says why).
	keywordParser *participle.Parser[gKeywordSource]
	opParser      *participle.Parser[gOp]
)

func init() {
	opts := []participle.Option{participle.Lexer(lexDef{}), participle.UseLookahead(lookahead)}
	stmtParser = participle.MustBuild[gStatement](opts...)
	pipeParser = participle.MustBuild[gPipeline](opts...)
	sourceParser = participle.MustBuild[gSource](opts...)
	keywordParser = participle.MustBuild[gKeywordSource](opts...)
	opParser = participle.MustBuild[gOp](opts...)
}

// gStatement is one `;`-separated statement.
type gStatement struct {
	Let  *gLet      `parser:"  @@"`
	Set  *gSet      `parser:"| @@"`
	Body *gPipeline `parser:"| @@"`
}

type gSet struct {
	Tokens []lexer.Token
	Name   string `parser:"'set' @Ident"`
	Value  gExpr  `parser:"( '=' @@ )?"`
}

type gLet struct {
	Tokens []lexer.Token
	Name   gName     `parser:"'let' @@ '='"`
	Value  gLetValue `parser:"@@"`
}

// gName is a bare or bracket-quoted name: logs, ['sample-http-logs'].
type gName struct {
	Tokens []lexer.Token
	Ident  string `parser:"  @Ident"`
	Quoted string `parser:"| '[' @String ']'"`
}

// gPipeline is parsed by hand (fastop.go): the source and each operator
// take the fast path when they can and the grammar's sub-parsers
// otherwise. Tokens holds only the first token; lowering ends the span at
// the last operator.
type gPipeline struct {
	Tokens []lexer.Token
	Source gSource
	Ops    []gOp
}

type gSource struct {
	Fast      *gFastSource `parser:"  @@"`
	Datatable *gDatatable  `parser:"| @@"`
	Print     *gPrint      `parser:"| @@"`
	External  *gExternal   `parser:"| @@"`
	Union     *gUnion      `parser:"| @@"`
	Search    *gSearch     `parser:"| @@"`
	Paren     *gParen      `parser:"| @@"`
	Table     *gName       `parser:"| @@"`
}

// gKeywordSource is the sources of gSource that start with a keyword,
// without the table name the keyword would otherwise be read as.
type gKeywordSource struct {
	Datatable *gDatatable `parser:"  @@"`
	Print     *gPrint     `parser:"| @@"`
	External  *gExternal  `parser:"| @@"`
	Union     *gUnion     `parser:"| @@"`
	Search    *gSearch    `parser:"| @@"`
}

type gParen struct {
	Tokens []lexer.Token
	Pipe   gPipeline `parser:"'(' @@ ')'"`
}

// gOp lists the operators, most frequent first: participle tries the
// alternatives in order.
type gOp struct {
	Fast     *gFastOp   `parser:"  @@"`
	Count    *gKeyword  `parser:"| @@"`
	Away     *gAway     `parser:"| @@"`
	Rename   *gRename   `parser:"| @@"`
	Reorder  *gReorder  `parser:"| @@"`
	Parse    *gParse    `parser:"| @@"`
	ParseKv  *gParseKv  `parser:"| @@"`
	MvExpand *gMvExpand `parser:"| @@"`
	Join     *gJoin     `parser:"| @@"`
	Lookup   *gLookup   `parser:"| @@"`
	Union    *gUnion    `parser:"| @@"`
	Series   *gSeries   `parser:"| @@"`
	Search   *gSearch   `parser:"| @@"`
	Sample   *gSample   `parser:"| @@"`
	Redact   *gRedact   `parser:"| @@"`
}

// gKeyword is an operator without arguments: count, getschema.
type gKeyword struct {
	Tokens []lexer.Token
	Kw     string `parser:"@( 'count' | 'getschema' )"`
}

type gAway struct {
	Tokens []lexer.Token
	Kw     string     `parser:"@( 'project-away' | 'project-keep' )"`
	Cols   []gPattern `parser:"@@ ( ',' @@ )*"`
}

type gRename struct {
	Tokens []lexer.Token
	Pairs  []gRenamePair `parser:"'project-rename' @@ ( ',' @@ )*"`
}

type gRenamePair struct {
	Tokens []lexer.Token
	New    gPattern `parser:"@@ '='"`
	Old    gPattern `parser:"@@"`
}

type gReorder struct {
	Tokens []lexer.Token
	Cols   []gReorderCol `parser:"'project-reorder' @@ ( ',' @@ )*"`
}

type gReorderCol struct {
	Tokens []lexer.Token
	Col    gPattern `parser:"@@"`
	Order  string   `parser:"@( 'asc' | 'desc' | 'granny-asc' | 'granny-desc' )?"`
}

type gParse struct {
	Tokens []lexer.Token
	Kw     string `parser:"@( 'parse' | 'parse-where' )"`
	Kind   string `parser:"( 'kind' '=' @Ident )?"`
	Flags  string `parser:"( 'flags' '=' @Ident )?"`
	Expr   gExpr  `parser:"@@ 'with'"`
	// Items may be separated by commas, as in KQL's `with * "a=" a, ...`
	// pattern list; the commas carry no meaning.
	Items []gParseItem `parser:"@@ ( ','? @@ )*"`
}

type gParseItem struct {
	Tokens []lexer.Token
	Star   bool   `parser:"  @'*'"`
	Const  string `parser:"| @String"`
	Name   gName  `parser:"| @@"`
	Type   string `parser:"  ( ':' @Ident )?"`
}

// gColumnDecl is `name[:type]`; the type is required except in parse-kv.
type gColumnDecl struct {
	Tokens []lexer.Token
	Name   gName  `parser:"@@"`
	Type   string `parser:"( ':' @Ident )?"`
}

type gParseKv struct {
	Tokens  []lexer.Token
	Expr    gExpr         `parser:"'parse-kv' @@ 'as' '('"`
	Keys    []gColumnDecl `parser:"@@ ( ',' @@ )* ')'"`
	Options gNamedList    `parser:"( 'with' '(' @@ ')' )?"`
}

type gMvExpand struct {
	Tokens []lexer.Token
	Kind   string   `parser:"'mv-expand' ( 'kind' '=' @Ident )?"`
	Index  gName    `parser:"( 'with_itemindex' '=' @@ )?"`
	Cols   []gMvCol `parser:"@@ ( ',' @@ )*"`
	Limit  gExpr    `parser:"( 'limit' @@ )?"`
}

type gMvCol struct {
	Tokens []lexer.Token
	Name   gName  `parser:"( @@ '=' )?"`
	Expr   gExpr  `parser:"@@"`
	To     string `parser:"( 'to' 'typeof' '(' @Ident ')' )?"`
}

// gTabularArg is the right side of join and lookup: `(pipeline)` or a
// table name.
type gTabularArg struct {
	Paren *gParen `parser:"  @@"`
	Table *gName  `parser:"| @@"`
}

type gJoin struct {
	Tokens []lexer.Token
	Kind   string      `parser:"'join' ( 'kind' '=' @Ident )?"`
	Right  gTabularArg `parser:"@@"`
	On     gExprList   `parser:"'on' @@"`
}

type gLookup struct {
	Tokens []lexer.Token
	Kind   string      `parser:"'lookup' ( 'kind' '=' @Ident )?"`
	Table  gTabularArg `parser:"@@"`
	On     gExprList   `parser:"'on' @@"`
}

type gUnion struct {
	Tokens []lexer.Token
	Opts   []gUnionOpt   `parser:"'union' @@*"`
	Tables []gUnionTable `parser:"@@ ( ',' @@ )*"`
}

type gUnionOpt struct {
	Kind       string  `parser:"  'kind' '=' @Ident"`
	WithSource gName   `parser:"| 'withsource' '=' @@"`
	IsFuzzy    *gFuzzy `parser:"| 'isfuzzy' '=' @@"`
}

// gFuzzy is union's isfuzzy value: true, false, 1 or 0. It is no full
// expression: one would read a bracketed table after it as an index
// (isfuzzy=0 ['A.A']), which fuzzing found.
type gFuzzy struct {
	Pos   lexer.Position
	Value string `parser:"@(Ident | Int)"`
}

type gUnionTable struct {
	Paren *gParen  `parser:"  @@"`
	Pat   gPattern `parser:"| @@"`
}

type gSeries struct {
	Tokens []lexer.Token
	Aggs   []gSeriesAgg `parser:"'make-series' @@ ( ',' @@ )*"`
	On     gExpr        `parser:"'on' @@"`
	RFrom  gExpr        `parser:"( 'in' 'range' '(' @@ ','"`
	RTo    gExpr        `parser:"  @@ ','"`
	RStep  gExpr        `parser:"  @@ ')'"`
	From   gExpr        `parser:"| ( 'from' @@ )?"`
	To     gExpr        `parser:"  ( 'to' @@ )?"`
	Step   gExpr        `parser:"  'step' @@ )"`
	By     gNamedList   `parser:"( 'by' @@ )?"`
}

type gSeriesAgg struct {
	Tokens  []lexer.Token
	Agg     gNamed `parser:"@@"`
	Default gExpr  `parser:"( 'default' '=' @@ )?"`
}

type gSearch struct {
	Tokens []lexer.Token
	Kind   string      `parser:"'search' ( 'kind' '=' @Ident )?"`
	In     []gPattern  `parser:"( 'in' '(' @@ ( ',' @@ )* ')' )?"`
	Pred   gSearchExpr `parser:"@@"`
}

type gSample struct {
	Tokens []lexer.Token
	N      gExpr `parser:"'sample' @@"`
}

type gRedact struct {
	Tokens   []lexer.Token
	Opts     []gRedactOpt `parser:"'redact' @@*"`
	Patterns gExprList    `parser:"@@"`
	On       gOnList      `parser:"@@"`
}

type gRedactOpt struct {
	Name  string `parser:"@( 'replaceToken' | 'replaceHash' | 'redactGroups' ) '='"`
	Value gExpr  `parser:"@@"`
}

type gDatatable struct {
	Tokens []lexer.Token
	Cols   []gColumnDecl `parser:"'datatable' '(' @@ ( ',' @@ )* ')'"`
	Values gValueList    `parser:"@@"`
}

type gPrint struct {
	Tokens []lexer.Token
	Cols   gNamedList `parser:"'print' @@"`
}

type gExternal struct {
	Tokens  []lexer.Token
	Cols    []gColumnDecl `parser:"'externaldata' '(' @@ ( ',' @@ )* ')'"`
	URLs    []string      `parser:"'[' @String ( ',' @String )* ']'"`
	Options gNamedList    `parser:"( 'with' '(' @@ ')' )?"`
}
