// Package parser turns APL text into an abstract syntax tree, reports syntax
// errors as `line:col: message`, and prints an AST back as canonical APL.
//
// The grammar is a participle grammar (grammar.go) built once at package
// init; its parse tree is lowered into the AST below, which is what the
// planner in core consumes. Every node carries the Span of the source text
// it came from so later stages can point at the exact place of an error.
//
// Who parses what: participle owns statements (let, set, declare), the
// tabular source, and the less frequent operators (project-away, rename,
// parse, mv-expand, join, lookup, union, make-series, search, sample,
// redact...). Hand-written Parseable hooks own what is hot or what a
// grammar of nested structs expresses badly: expressions with their nine
// precedence levels (expr.go), named lists and column patterns (named.go,
// hooks.go), whole pipelines, and the common operators where, extend,
// project, summarize, sort, take, top, count, getschema and distinct
// (fastop.go), which have no participle production at all.
//
// The package is part of the pure-Go core and builds for GOOS=js GOARCH=wasm.
package parser

import (
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// Pos is a position in the query text (srcpos.Pos, so that the execution
// can carry positions without importing the AST).
type Pos = srcpos.Pos

// Span is the half-open source range [Start, End) of a node.
type Span = srcpos.Span

// Node is implemented by every AST node.
type Node interface {
	Span() Span
}

// Query is a whole APL query: set and let statements, then exactly one
// tabular expression.
type Query struct {
	Sp    Span
	Stmts []Stmt    // *SetStmt and *LetStmt, in source order
	Body  *Pipeline // the tabular expression statement
}

// Stmt is a statement before the query body.
type Stmt interface {
	Node
	stmtNode()
}

// SetStmt is `set name [= value];`.
type SetStmt struct {
	Sp    Span
	Name  string
	Value Expr // nil when absent
}

// LetStmt is `let name = scalar;` or `let name = tabular;`.
// Exactly one of Expr and Tabular is set.
type LetStmt struct {
	Sp      Span
	Name    string
	Expr    Expr
	Tabular *Pipeline
}

// Pipeline is a source followed by `| operator` stages.
type Pipeline struct {
	Sp     Span
	Source Source
	Ops    []Operator
}

// Source produces the first table of a pipeline.
type Source interface {
	Node
	sourceNode()
}

// TableRef names a dataset or a tabular let binding: `logs`,
// `['sample-http-logs']`, `["a.b"]`. Pattern is true when Name contains a
// `*` wildcard (union and search only).
type TableRef struct {
	Sp      Span
	Name    string
	Quoted  bool
	Pattern bool
}

// ColumnDecl is `name:type` in datatable, externaldata and parse-kv.
type ColumnDecl struct {
	Sp   Span
	Name string
	Type vector.Type
}

// DatatableSource is `datatable(a:long, b:string) [1, "x", ...]`; Values
// is row-major.
type DatatableSource struct {
	Sp     Span
	Cols   []*ColumnDecl
	Values []Expr
}

// PrintSource is `print [name =] expr, ...`.
type PrintSource struct {
	Sp   Span
	Cols []*NamedExpr
}

// ExternalDataSource is `externaldata(cols) ["url", ...] [with (k=v, ...)]`.
type ExternalDataSource struct {
	Sp      Span
	Cols    []*ColumnDecl
	URLs    []string
	Options []*NamedExpr
}

// ParenSource is a parenthesised pipeline used as a source: `(T | where x)`.
type ParenSource struct {
	Sp   Span
	Pipe *Pipeline
}

// Operator is one `| op ...` stage. UnionOp and SearchOp are also Sources.
type Operator interface {
	Node
	opNode()
}

// NamedExpr is `[name =] expr` as used by project, extend, summarize, by
// clauses, print and with(...) options. Name is "" when not given; Names
// holds the tuple form `(a, b) = expr` when used.
type NamedExpr struct {
	Sp    Span
	Name  string
	Names []string
	Expr  Expr
}

// WhereOp is `where predicate` (`filter` is an alias).
type WhereOp struct {
	Sp   Span
	Pred Expr
}

// ProjectOp is `project [name =] expr, ...`.
type ProjectOp struct {
	Sp   Span
	Cols []*NamedExpr
}

// ColumnPattern is a column name or a wildcard pattern such as `data*` or
// `['x.y']*`.
type ColumnPattern struct {
	Sp      Span
	Pattern string
}

// ProjectAwayOp is `project-away pattern, ...`.
type ProjectAwayOp struct {
	Sp   Span
	Cols []*ColumnPattern
}

// ProjectKeepOp is `project-keep pattern, ...`.
type ProjectKeepOp struct {
	Sp   Span
	Cols []*ColumnPattern
}

// RenamePair is `new = old` in project-rename.
type RenamePair struct {
	Sp  Span
	New string
	Old string
}

// ProjectRenameOp is `project-rename new = old, ...`.
type ProjectRenameOp struct {
	Sp    Span
	Pairs []*RenamePair
}

// ReorderCol is one entry of project-reorder: a pattern and an optional
// order among asc, desc, granny-asc, granny-desc.
type ReorderCol struct {
	Sp      Span
	Pattern string
	Order   string
}

// ProjectReorderOp is `project-reorder col [asc|desc|...], ...`.
type ProjectReorderOp struct {
	Sp   Span
	Cols []*ReorderCol
}

// ExtendOp is `extend name = expr, ...`; Valid marks `extend-valid`.
type ExtendOp struct {
	Sp    Span
	Cols  []*NamedExpr
	Valid bool
}

// SummarizeOp is `summarize [name =] agg(...), ... [by [name =] expr, ...]`.
type SummarizeOp struct {
	Sp   Span
	Aggs []*NamedExpr
	By   []*NamedExpr
}

// SortKey is `expr [asc|desc] [nulls first|last]`. Desc is the effective
// direction (KQL's default is descending); Dir and Nulls keep what was
// written ("" when omitted) so the printer can reproduce it.
type SortKey struct {
	Sp    Span
	Expr  Expr
	Desc  bool
	Dir   string
	Nulls string
}

// SortOp is `sort by key, ...` or `order by key, ...`.
type SortOp struct {
	Sp      Span
	Keyword string // "sort" or "order"
	Keys    []*SortKey
}

// TopOp is `top N by key`.
type TopOp struct {
	Sp  Span
	N   Expr
	Key *SortKey
}

// TakeOp is `take N` or `limit N`.
type TakeOp struct {
	Sp      Span
	Keyword string // "take" or "limit"
	N       Expr
}

// CountOp is `count`.
type CountOp struct {
	Sp Span
}

// DistinctOp is `distinct expr, ...` or `distinct *`.
type DistinctOp struct {
	Sp   Span
	Cols []Expr
}

// GetSchemaOp is `getschema`.
type GetSchemaOp struct {
	Sp Span
}

// SampleOp is `sample fraction`.
type SampleOp struct {
	Sp       Span
	Fraction Expr
}

// SearchOp is `search [kind=...] [in (patterns)] predicate`. In a
// predicate a bare string literal means "any column has this term", and
// `col:"text"` becomes a BinaryExpr with Op ":".
type SearchOp struct {
	Sp   Span
	Kind string
	In   []*TableRef
	Pred Expr
}

// ParseItem is one element of a parse pattern: `*`, a string constant, or
// a capture `name[:type]`.
type ParseItem struct {
	Sp    Span
	Star  bool
	Const string
	Name  string
	Type  vector.Type // vector.String when not given
	Typed bool        // Type was written explicitly
}

// ParseOp is `parse [kind=simple|regex|relaxed] [flags=...] expr with
// pattern`; Where marks `parse-where`.
type ParseOp struct {
	Sp      Span
	Where   bool
	Kind    string
	Flags   string
	Expr    Expr
	Pattern []*ParseItem
}

// ParseKvOp is `parse-kv expr as (k[:t], ...) with (option = value, ...)`.
type ParseKvOp struct {
	Sp      Span
	Expr    Expr
	Keys    []*ColumnDecl
	Options []*NamedExpr
}

// MvExpandCol is one expanded column: `[name =] expr [to typeof(T)]`.
type MvExpandCol struct {
	Sp     Span
	Name   string
	Expr   Expr
	ToType vector.Type
	HasTo  bool
}

// MvExpandOp is `mv-expand [kind=bag|array] [with_itemindex=i] col, ...
// [limit N]`.
type MvExpandOp struct {
	Sp        Span
	Kind      string
	ItemIndex string
	Cols      []*MvExpandCol
	Limit     Expr
}

// JoinOp is `join [kind=K] right on cond, ...`. Each condition is an
// *Ident (same name on both sides) or a BinaryExpr with Op "==" whose
// sides may use $left.x / $right.y.
type JoinOp struct {
	Sp    Span
	Kind  string
	Right *Pipeline
	On    []Expr
}

// LookupOp is `lookup [kind=leftouter|inner] table on cond, ...`.
type LookupOp struct {
	Sp    Span
	Kind  string
	Table *Pipeline
	On    []Expr
}

// UnionOp is `union [kind=inner|outer] [withsource=F] [isfuzzy=b] T, ...`,
// as an operator or as a source. Tables are *TableRef (possibly a
// pattern) or parenthesised pipelines.
type UnionOp struct {
	Sp         Span
	Kind       string
	WithSource string
	IsFuzzy    Expr
	Tables     []*Pipeline
}

// MakeSeriesAgg is one `[name =] agg(...) [default = value]`.
type MakeSeriesAgg struct {
	Sp      Span
	Agg     *NamedExpr
	Default Expr
}

// MakeSeriesOp is `make-series aggs on axis [from A] [to B] step S [by ...]`
// (or `in range(A, B, S)`).
type MakeSeriesOp struct {
	Sp   Span
	Aggs []*MakeSeriesAgg
	On   Expr
	From Expr
	To   Expr
	Step Expr
	By   []*NamedExpr
}

// RedactOp is `redact [replaceToken="*"] [replaceHash=b] [redactGroups=b]
// regex, ... [on field, ...]`.
type RedactOp struct {
	Sp           Span
	ReplaceToken Expr
	ReplaceHash  Expr
	RedactGroups Expr
	Patterns     []Expr
	On           []Expr
}

// Expr is a scalar expression.
type Expr interface {
	Node
	exprNode()
}

// Ident is a name: a column, a let binding, a function name when called,
// `$left`/`$right`, or a bracketed name `['geo.city']` (Quoted).
type Ident struct {
	Sp     Span
	Name   string
	Quoted bool
}

// LitKind says which literal form a Literal is.
type LitKind uint8

// The literal forms.
const (
	LitNull LitKind = iota // a typed null such as int(null); Type says which
	LitBool
	LitInt
	LitReal
	LitString
	LitDateTime
	LitTimeSpan
	LitDynamic
)

// Literal is a constant. Value holds: bool, int64, float64, string,
// time.Time (UTC), time.Duration, or for dynamic a JSON-like value (nil,
// bool, int64, float64, string, []any, map[string]any); nil for LitNull.
// Type is the APL type of the literal. Raw is the source text.
type Literal struct {
	Sp    Span
	Kind  LitKind
	Type  vector.Type
	Value any
	Raw   string
}

// BinaryExpr is `L op R`. Op is the operator as written in canonical
// lower-case form: or, and, ==, !=, <, <=, >, >=, +, -, *, /, %, =~, !~,
// contains, !contains, contains_cs, !contains_cs, startswith, ...,
// has, !has, has_cs, hasprefix, hassuffix (and _cs, ! forms),
// "matches regex", "!matches regex", and ":" for search's field:"term".
// `<>` is normalised to `!=`.
type BinaryExpr struct {
	Sp    Span
	Op    string
	OpPos Pos
	L     Expr
	R     Expr
}

// UnaryExpr is `-x` or `+x`.
type UnaryExpr struct {
	Sp Span
	Op string
	X  Expr
}

// InExpr is `x in (a, b)` and its family: Op is one of in, !in, in~, !in~,
// has_any, has_any_cs, has_all. List may hold one dynamic array literal.
type InExpr struct {
	Sp   Span
	Op   string
	X    Expr
	List []Expr
}

// BetweenExpr is `x between (lo .. hi)`, or `!between` when Not.
type BetweenExpr struct {
	Sp  Span
	Not bool
	X   Expr
	Lo  Expr
	Hi  Expr
}

// CallExpr is `name(args...)`. An argument may be a *NamedArg (`n = e`, as
// in arg_max(n1 = x)) or a *StarExpr.
type CallExpr struct {
	Sp   Span
	Name string
	Args []Expr
}

// NamedArg is `name = expr` inside a call's argument list.
type NamedArg struct {
	Sp    Span
	Name  string
	Value Expr
}

// MemberExpr is `x.name`. A dotted bare name such as geo.city parses as a
// MemberExpr; the planner decides whether it is a flattened field.
type MemberExpr struct {
	Sp   Span
	X    Expr
	Name string
}

// IndexExpr is `x[index]` or `x['key']`.
type IndexExpr struct {
	Sp    Span
	X     Expr
	Index Expr
}

// SliceExpr is `x[lo:hi]`, `x[lo:]` or `x[:hi]` on an array or a string;
// an omitted bound is nil.
type SliceExpr struct {
	Sp     Span
	X      Expr
	Lo, Hi Expr
}

// StarExpr is `*` where an expression may stand for all columns.
type StarExpr struct {
	Sp Span
}

// TypeExpr is a type name used as an argument, as in typeof(long).
type TypeExpr struct {
	Sp   Span
	Type vector.Type
}

// SubqueryExpr is a parenthesised tabular expression used as a value, as
// in `x in (T | project y)`.
type SubqueryExpr struct {
	Sp   Span
	Pipe *Pipeline
}

// Span implementations.
func (n *Query) Span() Span              { return n.Sp }
func (n *SetStmt) Span() Span            { return n.Sp }
func (n *LetStmt) Span() Span            { return n.Sp }
func (n *Pipeline) Span() Span           { return n.Sp }
func (n *TableRef) Span() Span           { return n.Sp }
func (n *ColumnDecl) Span() Span         { return n.Sp }
func (n *DatatableSource) Span() Span    { return n.Sp }
func (n *PrintSource) Span() Span        { return n.Sp }
func (n *ExternalDataSource) Span() Span { return n.Sp }
func (n *ParenSource) Span() Span        { return n.Sp }
func (n *NamedExpr) Span() Span          { return n.Sp }
func (n *WhereOp) Span() Span            { return n.Sp }
func (n *ProjectOp) Span() Span          { return n.Sp }
func (n *ColumnPattern) Span() Span      { return n.Sp }
func (n *ProjectAwayOp) Span() Span      { return n.Sp }
func (n *ProjectKeepOp) Span() Span      { return n.Sp }
func (n *RenamePair) Span() Span         { return n.Sp }
func (n *ProjectRenameOp) Span() Span    { return n.Sp }
func (n *ReorderCol) Span() Span         { return n.Sp }
func (n *ProjectReorderOp) Span() Span   { return n.Sp }
func (n *ExtendOp) Span() Span           { return n.Sp }
func (n *SummarizeOp) Span() Span        { return n.Sp }
func (n *SortKey) Span() Span            { return n.Sp }
func (n *SortOp) Span() Span             { return n.Sp }
func (n *TopOp) Span() Span              { return n.Sp }
func (n *TakeOp) Span() Span             { return n.Sp }
func (n *CountOp) Span() Span            { return n.Sp }
func (n *DistinctOp) Span() Span         { return n.Sp }
func (n *GetSchemaOp) Span() Span        { return n.Sp }
func (n *SampleOp) Span() Span           { return n.Sp }
func (n *SearchOp) Span() Span           { return n.Sp }
func (n *ParseItem) Span() Span          { return n.Sp }
func (n *ParseOp) Span() Span            { return n.Sp }
func (n *ParseKvOp) Span() Span          { return n.Sp }
func (n *MvExpandCol) Span() Span        { return n.Sp }
func (n *MvExpandOp) Span() Span         { return n.Sp }
func (n *JoinOp) Span() Span             { return n.Sp }
func (n *LookupOp) Span() Span           { return n.Sp }
func (n *UnionOp) Span() Span            { return n.Sp }
func (n *MakeSeriesAgg) Span() Span      { return n.Sp }
func (n *MakeSeriesOp) Span() Span       { return n.Sp }
func (n *RedactOp) Span() Span           { return n.Sp }
func (n *Ident) Span() Span              { return n.Sp }
func (n *Literal) Span() Span            { return n.Sp }
func (n *BinaryExpr) Span() Span         { return n.Sp }
func (n *UnaryExpr) Span() Span          { return n.Sp }
func (n *InExpr) Span() Span             { return n.Sp }
func (n *BetweenExpr) Span() Span        { return n.Sp }
func (n *CallExpr) Span() Span           { return n.Sp }
func (n *NamedArg) Span() Span           { return n.Sp }
func (n *MemberExpr) Span() Span         { return n.Sp }
func (n *IndexExpr) Span() Span          { return n.Sp }
func (n *SliceExpr) Span() Span          { return n.Sp }
func (n *StarExpr) Span() Span           { return n.Sp }
func (n *TypeExpr) Span() Span           { return n.Sp }
func (n *SubqueryExpr) Span() Span       { return n.Sp }

func (*SetStmt) stmtNode() {}
func (*LetStmt) stmtNode() {}

func (*TableRef) sourceNode()           {}
func (*DatatableSource) sourceNode()    {}
func (*PrintSource) sourceNode()        {}
func (*ExternalDataSource) sourceNode() {}
func (*ParenSource) sourceNode()        {}
func (*UnionOp) sourceNode()            {}
func (*SearchOp) sourceNode()           {}

func (*WhereOp) opNode()          {}
func (*ProjectOp) opNode()        {}
func (*ProjectAwayOp) opNode()    {}
func (*ProjectKeepOp) opNode()    {}
func (*ProjectRenameOp) opNode()  {}
func (*ProjectReorderOp) opNode() {}
func (*ExtendOp) opNode()         {}
func (*SummarizeOp) opNode()      {}
func (*SortOp) opNode()           {}
func (*TopOp) opNode()            {}
func (*TakeOp) opNode()           {}
func (*CountOp) opNode()          {}
func (*DistinctOp) opNode()       {}
func (*GetSchemaOp) opNode()      {}
func (*SampleOp) opNode()         {}
func (*SearchOp) opNode()         {}
func (*ParseOp) opNode()          {}
func (*ParseKvOp) opNode()        {}
func (*MvExpandOp) opNode()       {}
func (*JoinOp) opNode()           {}
func (*LookupOp) opNode()         {}
func (*UnionOp) opNode()          {}
func (*MakeSeriesOp) opNode()     {}
func (*RedactOp) opNode()         {}

func (*Ident) exprNode()        {}
func (*Literal) exprNode()      {}
func (*BinaryExpr) exprNode()   {}
func (*UnaryExpr) exprNode()    {}
func (*InExpr) exprNode()       {}
func (*BetweenExpr) exprNode()  {}
func (*CallExpr) exprNode()     {}
func (*NamedArg) exprNode()     {}
func (*MemberExpr) exprNode()   {}
func (*IndexExpr) exprNode()    {}
func (*SliceExpr) exprNode()    {}
func (*StarExpr) exprNode()     {}
func (*TypeExpr) exprNode()     {}
func (*SubqueryExpr) exprNode() {}
