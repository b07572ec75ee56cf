package parser

import "strings"

// Format prints a query in canonical form, the text behind `aplite fmt`:
// statements end with `;` on their own line, the body puts one operator
// per line (`source\n| where ...`), nested pipelines stay on one line,
// keywords are lower case, and clause keywords such as kind= are written
// without spaces. Parse(Format(q)) gives back q, spans aside.
func Format(q *Query) string {
	var p printer
	for _, s := range q.Stmts {
		p.stmt(s)
		p.ws(";\n")
	}
	if q.Body != nil {
		p.pipeline(q.Body, "\n| ")
	}
	return p.b.String()
}

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *SetStmt:
		p.ws("set ", s.Name)
		if s.Value != nil {
			p.ws(" = ")
			p.expr(s.Value)
		}
	case *LetStmt:
		p.ws("let ")
		p.name(s.Name, false)
		p.ws(" = ")
		if s.Tabular != nil {
			p.pipeline(s.Tabular, " | ")
		} else {
			p.expr(s.Expr)
		}
	}
}

func (p *printer) pipeline(pl *Pipeline, sep string) {
	if pl == nil {
		return
	}
	p.source(pl.Source)
	for _, op := range pl.Ops {
		p.ws(sep)
		p.op(op)
	}
}

// tabularArg prints a join/lookup/union table: a bare reference when the
// pipeline is only a table name, else a parenthesised pipeline.
func (p *printer) tabularArg(pl *Pipeline) {
	if ref, ok := pl.Source.(*TableRef); ok && len(pl.Ops) == 0 {
		p.tableRef(ref)
		return
	}
	p.ws("(")
	p.pipeline(pl, " | ")
	p.ws(")")
}

func (p *printer) tableRef(t *TableRef) {
	if t.Pattern && !t.Quoted {
		p.pattern(t.Name)
		return
	}
	p.name(t.Name, t.Quoted)
}

// pattern prints a column or table pattern, quoting the parts between
// wildcards that are not plain (possibly dotted) names.
func (p *printer) pattern(pat string) {
	parts := strings.Split(pat, "*")
	for i, part := range parts {
		if i > 0 {
			p.ws("*")
		}
		if part == "" {
			continue
		}
		// After a wildcard a part may start with its dot: *.A.
		last := i == len(parts)-1
		bare := isDottedName(part) || i > 0 && part[0] == '.' && (part == "." || isDottedName(part[1:]))
		if bare && !(last && strings.HasSuffix(part, ".")) { // a trailing dot needs a wildcard after it
			p.ws(part)
		} else {
			p.ws("['", escapeQuoted(part, '\''), "']")
		}
	}
}

// isDottedName reports whether a pattern part can be written bare: dotted
// plain names such as geo.city or geo. (before a wildcard).
func isDottedName(s string) bool {
	if s[0] == '.' {
		return false
	}
	for _, seg := range strings.Split(s, ".") {
		if seg != "" && !isBareName(seg) {
			return false
		}
	}
	return true
}

func (p *printer) source(s Source) {
	switch s := s.(type) {
	case *TableRef:
		p.tableRef(s)
	case *DatatableSource:
		p.ws("datatable(")
		p.decls(s.Cols)
		p.ws(") [")
		p.exprList(s.Values)
		p.ws("]")
	case *PrintSource:
		p.ws("print ")
		p.namedList(s.Cols)
	case *ExternalDataSource:
		p.ws("externaldata(")
		p.decls(s.Cols)
		p.ws(") [")
		for i, u := range s.URLs {
			if i > 0 {
				p.ws(", ")
			}
			p.ws(quoteString(u))
		}
		p.ws("]")
		if len(s.Options) > 0 {
			p.ws(" with (")
			p.namedList(s.Options)
			p.ws(")")
		}
	case *ParenSource:
		p.ws("(")
		p.pipeline(s.Pipe, " | ")
		p.ws(")")
	case *UnionOp:
		p.union(s)
	case *SearchOp:
		p.search(s)
	}
}

func (p *printer) decls(ds []*ColumnDecl) {
	for i, d := range ds {
		if i > 0 {
			p.ws(", ")
		}
		p.name(d.Name, false)
		p.ws(":", d.Type.String())
	}
}

func (p *printer) named(n *NamedExpr) {
	switch {
	case len(n.Names) > 0:
		p.ws("(")
		for i, name := range n.Names {
			if i > 0 {
				p.ws(", ")
			}
			p.name(name, false)
		}
		p.ws(") = ")
	case n.Name != "":
		p.name(n.Name, false)
		p.ws(" = ")
	}
	p.expr(n.Expr)
}

func (p *printer) namedList(ns []*NamedExpr) {
	for i, n := range ns {
		if i > 0 {
			p.ws(", ")
		}
		p.named(n)
	}
}

func (p *printer) kind(k string) {
	if k != "" {
		p.ws(" kind=", k)
	}
}

func (p *printer) sortKey(k *SortKey) {
	p.expr(k.Expr)
	if k.Dir != "" {
		p.ws(" ", k.Dir)
	}
	if k.Nulls != "" {
		p.ws(" nulls ", k.Nulls)
	}
}

func (p *printer) op(o Operator) {
	switch o := o.(type) {
	case *WhereOp:
		p.ws("where ")
		p.expr(o.Pred)
	case *ProjectOp:
		p.ws("project ")
		p.namedList(o.Cols)
	case *ExtendOp:
		if o.Valid {
			p.ws("extend-valid ")
		} else {
			p.ws("extend ")
		}
		p.namedList(o.Cols)
	case *SummarizeOp:
		p.ws("summarize")
		if len(o.Aggs) > 0 {
			p.ws(" ")
			p.namedList(o.Aggs)
		}
		if len(o.By) > 0 {
			p.ws(" by ")
			p.namedList(o.By)
		}
	case *SortOp:
		p.ws(o.Keyword, " by ")
		for i, k := range o.Keys {
			if i > 0 {
				p.ws(", ")
			}
			p.sortKey(k)
		}
	case *TakeOp:
		p.ws(o.Keyword, " ")
		p.expr(o.N)
	case *TopOp:
		p.ws("top ")
		p.expr(o.N)
		p.ws(" by ")
		p.sortKey(o.Key)
	case *CountOp:
		p.ws("count")
	case *GetSchemaOp:
		p.ws("getschema")
	case *DistinctOp:
		p.ws("distinct ")
		p.exprList(o.Cols)
	case *SampleOp:
		p.ws("sample ")
		p.expr(o.Fraction)
	default:
		p.op2(o)
	}
}

func (p *printer) patterns(cols []*ColumnPattern) {
	for i, c := range cols {
		if i > 0 {
			p.ws(", ")
		}
		p.pattern(c.Pattern)
	}
}

func (p *printer) op2(o Operator) {
	switch o := o.(type) {
	case *ProjectAwayOp:
		p.ws("project-away ")
		p.patterns(o.Cols)
	case *ProjectKeepOp:
		p.ws("project-keep ")
		p.patterns(o.Cols)
	case *ProjectRenameOp:
		p.ws("project-rename ")
		for i, r := range o.Pairs {
			if i > 0 {
				p.ws(", ")
			}
			p.pattern(r.New)
			p.ws(" = ")
			p.pattern(r.Old)
		}
	case *ProjectReorderOp:
		p.ws("project-reorder ")
		for i, c := range o.Cols {
			if i > 0 {
				p.ws(", ")
			}
			p.pattern(c.Pattern)
			if c.Order != "" {
				p.ws(" ", c.Order)
			}
		}
	case *ParseOp:
		p.parseOp(o)
	case *ParseKvOp:
		p.ws("parse-kv ")
		p.expr(o.Expr)
		p.ws(" as (")
		p.decls(o.Keys)
		p.ws(")")
		if len(o.Options) > 0 {
			p.ws(" with (")
			p.namedList(o.Options)
			p.ws(")")
		}
	case *MvExpandOp:
		p.mvExpand(o)
	default:
		p.op3(o)
	}
}

func (p *printer) op3(o Operator) {
	switch o := o.(type) {
	case *JoinOp:
		p.ws("join")
		p.kind(o.Kind)
		p.ws(" ")
		p.tabularArg(o.Right)
		p.ws(" on ")
		p.exprList(o.On)
	case *LookupOp:
		p.ws("lookup")
		p.kind(o.Kind)
		p.ws(" ")
		p.tabularArg(o.Table)
		p.ws(" on ")
		p.exprList(o.On)
	case *UnionOp:
		p.union(o)
	case *SearchOp:
		p.search(o)
	case *MakeSeriesOp:
		p.makeSeries(o)
	case *RedactOp:
		p.redact(o)
	}
}

func (p *printer) parseOp(o *ParseOp) {
	if o.Where {
		p.ws("parse-where")
	} else {
		p.ws("parse")
	}
	p.kind(o.Kind)
	if o.Flags != "" {
		p.ws(" flags=", o.Flags)
	}
	p.ws(" ")
	p.expr(o.Expr)
	p.ws(" with")
	for _, it := range o.Pattern {
		p.ws(" ")
		switch {
		case it.Star:
			p.ws("*")
		case it.Name != "":
			p.name(it.Name, false)
			if it.Typed {
				p.ws(":", it.Type.String())
			}
		default:
			p.ws(quoteString(it.Const))
		}
	}
}

func (p *printer) mvExpand(o *MvExpandOp) {
	p.ws("mv-expand")
	p.kind(o.Kind)
	if o.ItemIndex != "" {
		p.ws(" with_itemindex=")
		p.name(o.ItemIndex, false)
	}
	for i, c := range o.Cols {
		if i > 0 {
			p.ws(",")
		}
		p.ws(" ")
		if c.Name != "" {
			// A column named like a clause (kind, with_itemindex) is
			// quoted, or it would read back as that clause.
			p.name(c.Name, c.Name == "kind" || c.Name == "with_itemindex")
			p.ws(" = ")
		}
		p.expr(c.Expr)
		if c.HasTo {
			p.ws(" to typeof(", c.ToType.String(), ")")
		}
	}
	if o.Limit != nil {
		p.ws(" limit ")
		p.expr(o.Limit)
	}
}

func (p *printer) union(o *UnionOp) {
	p.ws("union")
	p.kind(o.Kind)
	if o.WithSource != "" {
		p.ws(" withsource=")
		p.name(o.WithSource, false)
	}
	if o.IsFuzzy != nil {
		p.ws(" isfuzzy=")
		p.expr(o.IsFuzzy)
	}
	for i, t := range o.Tables {
		if i > 0 {
			p.ws(",")
		}
		p.ws(" ")
		p.tabularArg(t)
	}
}

func (p *printer) search(o *SearchOp) {
	p.ws("search")
	p.kind(o.Kind)
	if len(o.In) > 0 {
		p.ws(" in (")
		for i, t := range o.In {
			if i > 0 {
				p.ws(", ")
			}
			p.tableRef(t)
		}
		p.ws(")")
	}
	p.ws(" ")
	if searchClauseWord(o.Pred) {
		// search in(x) would read as the in clause (fuzzing found it).
		p.ws("(")
		p.expr(o.Pred)
		p.ws(")")
		return
	}
	p.expr(o.Pred)
}

// searchClauseWord reports whether a search predicate starts with a word
// the search operator reads as one of its clauses (in, kind).
func searchClauseWord(e Expr) bool {
	for {
		switch x := e.(type) {
		case *CallExpr:
			return x.Name == "in" || x.Name == "kind"
		case *Ident:
			return !x.Quoted && (x.Name == "in" || x.Name == "kind")
		case *BinaryExpr:
			e = x.L
		case *IndexExpr:
			e = x.X
		case *MemberExpr:
			e = x.X
		default:
			return false
		}
	}
}

func (p *printer) makeSeries(o *MakeSeriesOp) {
	p.ws("make-series ")
	for i, a := range o.Aggs {
		if i > 0 {
			p.ws(", ")
		}
		p.named(a.Agg)
		if a.Default != nil {
			p.ws(" default = ")
			p.expr(a.Default)
		}
	}
	p.ws(" on ")
	p.expr(o.On)
	if o.From != nil {
		p.ws(" from ")
		p.expr(o.From)
	}
	if o.To != nil {
		p.ws(" to ")
		p.expr(o.To)
	}
	p.ws(" step ")
	p.expr(o.Step)
	if len(o.By) > 0 {
		p.ws(" by ")
		p.namedList(o.By)
	}
}

func (p *printer) redact(o *RedactOp) {
	p.ws("redact")
	opts := []struct {
		name string
		e    Expr
	}{{"replaceToken", o.ReplaceToken}, {"replaceHash", o.ReplaceHash}, {"redactGroups", o.RedactGroups}}
	for _, opt := range opts {
		if opt.e != nil {
			p.ws(" ", opt.name, "=")
			p.expr(opt.e)
		}
	}
	p.ws(" ")
	p.exprList(o.Patterns)
	if len(o.On) > 0 {
		p.ws(" on ")
		p.exprList(o.On)
	}
}
