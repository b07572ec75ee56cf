package parser

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/aplite/aplite/vector"
)

// Lowering turns participle's parse tree into the AST, checking what the
// grammar leaves open (type names, operator kinds, datatable shape).

func spanOf(toks []lexer.Token) Span {
	if len(toks) == 0 {
		return Span{}
	}
	return Span{Start: posOf(toks[0].Pos), End: tokEnd(&toks[len(toks)-1])}
}

// findTok returns the first token equal to v after the token `after`
// (or anywhere when after is ""), for pointing errors at a clause.
func findTok(toks []lexer.Token, after, v string) *lexer.Token {
	seen := after == ""
	for i := range toks {
		if seen && toks[i].Value == v {
			return &toks[i]
		}
		if toks[i].Value == after {
			seen = true
		}
	}
	if len(toks) > 0 {
		return &toks[0]
	}
	return &lexer.Token{}
}

func lowerName(g *gName) (string, bool, error) {
	if g.Quoted == "" {
		return g.Ident, false, nil
	}
	s, msg := unquote(g.Quoted)
	if msg != "" {
		return "", false, errAt(findTok(g.Tokens, "", g.Quoted), msg)
	}
	return s, true, nil
}

func lowerPipeline(g *gPipeline) (*Pipeline, error) {
	src, err := lowerSource(&g.Source)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{Sp: spanOf(g.Tokens), Source: src, Ops: make([]Operator, 0, len(g.Ops))}
	p.Sp.End = src.Span().End
	for i := range g.Ops {
		op, err := lowerOp(&g.Ops[i])
		if err != nil {
			return nil, err
		}
		p.Ops = append(p.Ops, op)
		p.Sp.End = op.Span().End
	}
	return p, nil
}

func lowerSource(g *gSource) (Source, error) {
	switch {
	case g.Fast != nil:
		return g.Fast.Ref, nil
	case g.Datatable != nil:
		return lowerDatatable(g.Datatable)
	case g.Print != nil:
		cols, err := lowerNamedExprs(g.Print.Cols)
		return &PrintSource{Sp: spanOf(g.Print.Tokens), Cols: cols}, err
	case g.External != nil:
		return lowerExternal(g.External)
	case g.Union != nil:
		return lowerUnion(g.Union)
	case g.Search != nil:
		return lowerSearch(g.Search)
	case g.Paren != nil:
		pipe, err := lowerPipeline(&g.Paren.Pipe)
		return &ParenSource{Sp: spanOf(g.Paren.Tokens), Pipe: pipe}, err
	default:
		return lowerTableName(g.Table)
	}
}

func lowerTableName(g *gName) (*TableRef, error) {
	name, quoted, err := lowerName(g)
	return &TableRef{Sp: spanOf(g.Tokens), Name: name, Quoted: quoted, Pattern: strings.Contains(name, "*")}, err
}

func lowerOp(g *gOp) (Operator, error) {
	switch {
	case g.Fast != nil:
		return g.Fast.Op, nil
	case g.Count != nil:
		if g.Count.Kw == "getschema" {
			return &GetSchemaOp{Sp: spanOf(g.Count.Tokens)}, nil
		}
		return &CountOp{Sp: spanOf(g.Count.Tokens)}, nil
	case g.Sample != nil:
		return &SampleOp{Sp: spanOf(g.Sample.Tokens), Fraction: g.Sample.N.E}, nil
	}
	return lowerOp2(g)
}

// lowerOp2 handles the less frequent operators.
func lowerOp2(g *gOp) (Operator, error) {
	switch {
	case g.Away != nil:
		return lowerAway(g.Away), nil
	case g.Rename != nil:
		return lowerRename(g.Rename)
	case g.Reorder != nil:
		return lowerReorder(g.Reorder), nil
	case g.Parse != nil:
		return lowerParse(g.Parse)
	case g.ParseKv != nil:
		return lowerParseKv(g.ParseKv)
	case g.MvExpand != nil:
		return lowerMvExpand(g.MvExpand)
	case g.Join != nil:
		return lowerJoin(g.Join)
	case g.Lookup != nil:
		return lowerLookup(g.Lookup)
	case g.Union != nil:
		return lowerUnion(g.Union)
	case g.Series != nil:
		return lowerSeries(g.Series)
	case g.Search != nil:
		return lowerSearch(g.Search)
	default:
		return lowerRedact(g.Redact), nil
	}
}

func lowerNamedExprs(g gNamedList) ([]*NamedExpr, error) { return g.Items, nil }

func containsCall(e Expr) bool {
	found := false
	Walk(e, func(n Node) bool {
		if _, ok := n.(*CallExpr); ok {
			found = true
		}
		return !found
	})
	return found
}

func lowerAway(g *gAway) Operator {
	cols := make([]*ColumnPattern, len(g.Cols))
	for i := range g.Cols {
		cols[i] = &ColumnPattern{Sp: g.Cols[i].Sp, Pattern: g.Cols[i].Text}
	}
	if g.Kw == "project-keep" {
		return &ProjectKeepOp{Sp: spanOf(g.Tokens), Cols: cols}
	}
	return &ProjectAwayOp{Sp: spanOf(g.Tokens), Cols: cols}
}

func lowerRename(g *gRename) (Operator, error) {
	op := &ProjectRenameOp{Sp: spanOf(g.Tokens)}
	for i := range g.Pairs {
		p := &g.Pairs[i]
		for _, pat := range []*gPattern{&p.New, &p.Old} {
			if strings.Contains(pat.Text, "*") {
				return nil, &Error{Pos: pat.Sp.Start, Msg: "project-rename takes plain column names, not the pattern " + quoteText(pat.Text)}
			}
		}
		op.Pairs = append(op.Pairs, &RenamePair{Sp: spanOf(p.Tokens), New: p.New.Text, Old: p.Old.Text})
	}
	return op, nil
}

func lowerReorder(g *gReorder) Operator {
	op := &ProjectReorderOp{Sp: spanOf(g.Tokens)}
	for i := range g.Cols {
		c := &g.Cols[i]
		op.Cols = append(op.Cols, &ReorderCol{Sp: spanOf(c.Tokens), Pattern: c.Col.Text, Order: c.Order})
	}
	return op
}

// checkKind validates a kind=... value against the allowed set.
func checkKind(toks []lexer.Token, kind, op string, allowed ...string) error {
	if kind == "" {
		return nil
	}
	for _, a := range allowed {
		if kind == a {
			return nil
		}
	}
	return errAt(findTok(toks, "kind", kind), "unknown "+op+" kind "+quoteText(kind)+" (want "+strings.Join(allowed, ", ")+")")
}

func lowerParse(g *gParse) (Operator, error) {
	if err := checkKind(g.Tokens, g.Kind, "parse", "simple", "regex", "relaxed"); err != nil {
		return nil, err
	}
	op := &ParseOp{Sp: spanOf(g.Tokens), Where: g.Kw == "parse-where", Kind: g.Kind, Flags: g.Flags, Expr: g.Expr.E}
	for i := range g.Items {
		it := &g.Items[i]
		item := &ParseItem{Sp: spanOf(it.Tokens), Star: it.Star, Type: vector.String}
		switch {
		case it.Star:
		case it.Const != "":
			s, msg := unquote(it.Const)
			if msg != "" {
				return nil, errAt(&it.Tokens[0], msg)
			}
			item.Const = s
		default:
			name, _, err := lowerName(&it.Name)
			if err != nil {
				return nil, err
			}
			item.Name = name
			if it.Type != "" {
				typ, err := lowerType(it.Tokens, it.Type)
				if err != nil {
					return nil, err
				}
				item.Type, item.Typed = typ, true
			}
		}
		op.Pattern = append(op.Pattern, item)
	}
	return op, nil
}

func lowerType(toks []lexer.Token, name string) (vector.Type, error) {
	typ, ok := parseTypeName(name)
	if !ok {
		return 0, errAt(findTok(toks, ":", name), "unknown type "+quoteText(name)+" (want bool, long, int, real, double, string, datetime, timespan or dynamic)")
	}
	return typ, nil
}

func lowerColumnDecls(gs []gColumnDecl, typeRequired bool) ([]*ColumnDecl, error) {
	out := make([]*ColumnDecl, len(gs))
	for i := range gs {
		g := &gs[i]
		name, _, err := lowerName(&g.Name)
		if err != nil {
			return nil, err
		}
		d := &ColumnDecl{Sp: spanOf(g.Tokens), Name: name, Type: vector.String}
		switch {
		case g.Type != "":
			if d.Type, err = lowerType(g.Tokens, g.Type); err != nil {
				return nil, err
			}
		case typeRequired:
			return nil, &Error{Pos: d.Sp.End, Msg: "expected \":type\" after column " + quoteText(name)}
		}
		out[i] = d
	}
	return out, nil
}

func lowerParseKv(g *gParseKv) (Operator, error) {
	keys, err := lowerColumnDecls(g.Keys, false)
	if err != nil {
		return nil, err
	}
	opts, err := lowerNamedExprs(g.Options)
	if err != nil {
		return nil, err
	}
	return &ParseKvOp{Sp: spanOf(g.Tokens), Expr: g.Expr.E, Keys: keys, Options: opts}, nil
}

func lowerMvExpand(g *gMvExpand) (Operator, error) {
	if err := checkKind(g.Tokens, g.Kind, "mv-expand", "bag", "array"); err != nil {
		return nil, err
	}
	op := &MvExpandOp{Sp: spanOf(g.Tokens), Kind: g.Kind, Limit: g.Limit.E}
	if len(g.Index.Tokens) > 0 {
		op.ItemIndex, _, _ = lowerName(&g.Index)
	}
	for i := range g.Cols {
		c := &g.Cols[i]
		col := &MvExpandCol{Sp: spanOf(c.Tokens), Expr: c.Expr.E}
		if len(c.Name.Tokens) > 0 {
			col.Name, _, _ = lowerName(&c.Name)
		}
		if c.To != "" {
			typ, err := lowerType(c.Tokens, c.To)
			if err != nil {
				return nil, err
			}
			col.ToType, col.HasTo = typ, true
		}
		op.Cols = append(op.Cols, col)
	}
	return op, nil
}

var joinKinds = []string{"inner", "innerunique", "leftouter", "rightouter", "fullouter", "leftanti", "rightanti", "leftsemi", "rightsemi", "leftantisemi", "rightantisemi", "anti"}

func lowerTabularArg(g *gTabularArg) (*Pipeline, error) {
	if g.Paren != nil {
		return lowerPipeline(&g.Paren.Pipe)
	}
	ref, err := lowerTableName(g.Table)
	if err != nil {
		return nil, err
	}
	return &Pipeline{Sp: ref.Sp, Source: ref}, nil
}

func lowerJoin(g *gJoin) (Operator, error) {
	if err := checkKind(g.Tokens, g.Kind, "join", joinKinds...); err != nil {
		return nil, err
	}
	right, err := lowerTabularArg(&g.Right)
	if err != nil {
		return nil, err
	}
	return &JoinOp{Sp: spanOf(g.Tokens), Kind: g.Kind, Right: right, On: g.On.E}, nil
}

func lowerLookup(g *gLookup) (Operator, error) {
	if err := checkKind(g.Tokens, g.Kind, "lookup", "leftouter", "inner"); err != nil {
		return nil, err
	}
	table, err := lowerTabularArg(&g.Table)
	if err != nil {
		return nil, err
	}
	return &LookupOp{Sp: spanOf(g.Tokens), Kind: g.Kind, Table: table, On: g.On.E}, nil
}

func lowerUnion(g *gUnion) (*UnionOp, error) {
	op := &UnionOp{Sp: spanOf(g.Tokens)}
	for i := range g.Opts {
		o := &g.Opts[i]
		switch {
		case o.Kind != "":
			if err := checkKind(g.Tokens, o.Kind, "union", "inner", "outer"); err != nil {
				return nil, err
			}
			op.Kind = o.Kind
		case len(o.WithSource.Tokens) > 0:
			op.WithSource, _, _ = lowerName(&o.WithSource)
		case o.IsFuzzy != nil:
			lit, err := o.IsFuzzy.literal()
			if err != nil {
				return nil, err
			}
			op.IsFuzzy = lit
		}
	}
	for i := range g.Tables {
		t := &g.Tables[i]
		if t.Paren != nil {
			pipe, err := lowerPipeline(&t.Paren.Pipe)
			if err != nil {
				return nil, err
			}
			op.Tables = append(op.Tables, pipe)
			continue
		}
		ref := patternRef(&t.Pat)
		op.Tables = append(op.Tables, &Pipeline{Sp: ref.Sp, Source: ref})
	}
	return op, nil
}

func patternRef(p *gPattern) *TableRef {
	return &TableRef{Sp: p.Sp, Name: p.Text, Quoted: p.Quoted, Pattern: strings.Contains(p.Text, "*")}
}

func lowerSeries(g *gSeries) (Operator, error) {
	op := &MakeSeriesOp{Sp: spanOf(g.Tokens), On: g.On.E, From: g.From.E, To: g.To.E, Step: g.Step.E}
	if g.RStep.E != nil {
		op.From, op.To, op.Step = g.RFrom.E, g.RTo.E, g.RStep.E
	}
	for i := range g.Aggs {
		a := &g.Aggs[i]
		op.Aggs = append(op.Aggs, &MakeSeriesAgg{Sp: spanOf(a.Tokens), Agg: a.Agg.N, Default: a.Default.E})
	}
	by, err := lowerNamedExprs(g.By)
	op.By = by
	return op, err
}

func lowerSearch(g *gSearch) (*SearchOp, error) {
	if err := checkKind(g.Tokens, g.Kind, "search", "case_sensitive", "case_insensitive", "default"); err != nil {
		return nil, err
	}
	op := &SearchOp{Sp: spanOf(g.Tokens), Kind: g.Kind, Pred: g.Pred.E}
	for i := range g.In {
		op.In = append(op.In, patternRef(&g.In[i]))
	}
	return op, nil
}

func lowerRedact(g *gRedact) Operator {
	op := &RedactOp{Sp: spanOf(g.Tokens), Patterns: g.Patterns.E}
	if len(g.On.E) > 0 {
		op.On = g.On.E
	}
	for i := range g.Opts {
		switch o := &g.Opts[i]; o.Name {
		case "replaceToken":
			op.ReplaceToken = o.Value.E
		case "replaceHash":
			op.ReplaceHash = o.Value.E
		default:
			op.RedactGroups = o.Value.E
		}
	}
	return op
}

func lowerDatatable(g *gDatatable) (Source, error) {
	cols, err := lowerColumnDecls(g.Cols, true)
	if err != nil {
		return nil, err
	}
	d := &DatatableSource{Sp: spanOf(g.Tokens), Cols: cols, Values: g.Values.E}
	if len(d.Values)%len(cols) != 0 {
		return nil, &Error{Pos: d.Sp.Start, Msg: "datatable has " + itoa(len(d.Values)) + " values for " + itoa(len(cols)) + " columns: the count must be a multiple of the column count"}
	}
	return d, nil
}

func lowerExternal(g *gExternal) (Source, error) {
	cols, err := lowerColumnDecls(g.Cols, true)
	if err != nil {
		return nil, err
	}
	src := &ExternalDataSource{Sp: spanOf(g.Tokens), Cols: cols}
	for _, u := range g.URLs {
		s, msg := unquote(u)
		if msg != "" {
			return nil, errAt(findTok(g.Tokens, "", u), msg)
		}
		src.URLs = append(src.URLs, s)
	}
	if src.Options, err = lowerNamedExprs(g.Options); err != nil {
		return nil, err
	}
	if len(src.Options) == 0 {
		src.Options = nil
	}
	return src, nil
}

// literal reads isfuzzy's value as a bool literal.
func (f *gFuzzy) literal() (*Literal, error) {
	start := posOf(f.Pos)
	end := start
	end.Offset += len(f.Value)
	end.Col += len(f.Value)
	lit := &Literal{Sp: Span{Start: start, End: end}, Kind: LitBool, Type: boolType, Raw: f.Value}
	switch strings.ToLower(f.Value) {
	case "true", "1":
		lit.Value = true
	case "false", "0":
		lit.Value = false
	default:
		return nil, &Error{Pos: start, Msg: "isfuzzy takes true or false, got " + quoteText(f.Value)}
	}
	return lit, nil
}
