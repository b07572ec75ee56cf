package parser

import (
	"strconv"
	"strings"
	"time"
)

// Dump renders an AST as an indented S-expression, for golden files and
// debugging. Spans and the Raw text of literals are left out, so two trees
// that differ only in positions or literal spelling dump the same.
func Dump(n Node) string {
	var d dumper
	d.node(n, 0)
	return d.b.String()
}

type dumper struct {
	b strings.Builder
}

// item is one thing inside a dumped node: a child node, or a labelled
// child (`(on ...)`), or a list of children under a label.
type item struct {
	label string
	node  Node
	list  []Node
}

func (d *dumper) node(n Node, depth int) {
	head, items := describeNode(n)
	d.b.WriteString("(")
	d.b.WriteString(head)
	for _, it := range items {
		switch {
		case it.list != nil:
			d.newline(depth + 1)
			d.b.WriteString("(" + it.label)
			for _, c := range it.list {
				d.newline(depth + 2)
				d.node(c, depth+2)
			}
			d.b.WriteString(")")
		case it.node != nil:
			d.newline(depth + 1)
			if it.label != "" {
				d.b.WriteString("(" + it.label + " ")
				d.node(it.node, depth+1)
				d.b.WriteString(")")
			} else {
				d.node(it.node, depth+1)
			}
		}
	}
	d.b.WriteString(")")
}

func (d *dumper) newline(depth int) {
	d.b.WriteString("\n")
	d.b.WriteString(strings.Repeat("  ", depth))
}

func q(s string) string { return strconv.Quote(s) }

func kid(n Node) item {
	if isNil(n) {
		return item{}
	}
	return item{node: n}
}

func labelled(label string, n Node) item {
	if isNil(n) {
		return item{}
	}
	return item{label: label, node: n}
}

func isNil(n Node) bool {
	switch v := n.(type) {
	case nil:
		return true
	case *Pipeline:
		return v == nil
	case *NamedExpr:
		return v == nil
	case *SortKey:
		return v == nil
	}
	return false
}

func listOf[T Node](label string, xs []T) item {
	if len(xs) == 0 {
		return item{}
	}
	out := make([]Node, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return item{label: label, list: out}
}

func attr(name, v string) string {
	if v == "" {
		return ""
	}
	return " " + name + "=" + v
}

func describeNode(n Node) (string, []item) {
	switch n := n.(type) {
	case *Query:
		return "query", []item{listOf("stmts", n.Stmts), kid(n.Body)}
	case *SetStmt:
		return "set " + q(n.Name), []item{kid(n.Value)}
	case *LetStmt:
		return "let " + q(n.Name), []item{kid(n.Expr), kid(n.Tabular)}
	case *Pipeline:
		return "pipeline", append([]item{kid(n.Source)}, nodesOf(n.Ops)...)
	case *TableRef:
		return "table " + q(n.Name) + onFlag(" quoted", n.Quoted) + onFlag(" pattern", n.Pattern), nil
	case *ColumnDecl:
		return "col " + q(n.Name) + " " + n.Type.String(), nil
	case *DatatableSource:
		return "datatable", []item{listOf("cols", n.Cols), listOf("values", n.Values)}
	case *PrintSource:
		return "print", nodesOf(n.Cols)
	case *ExternalDataSource:
		urls := make([]string, len(n.URLs))
		for i, u := range n.URLs {
			urls[i] = q(u)
		}
		return "externaldata urls=[" + strings.Join(urls, " ") + "]", []item{listOf("cols", n.Cols), listOf("with", n.Options)}
	case *ParenSource:
		return "paren", []item{kid(n.Pipe)}
	case *NamedExpr:
		head := "named"
		if n.Name != "" {
			head += " " + q(n.Name)
		}
		if len(n.Names) > 0 {
			names := make([]string, len(n.Names))
			for i, s := range n.Names {
				names[i] = q(s)
			}
			head += " (" + strings.Join(names, " ") + ")"
		}
		return head, []item{kid(n.Expr)}
	}
	return describeOp(n)
}

func onFlag(s string, on bool) string {
	if on {
		return s
	}
	return ""
}

func nodesOf[T Node](xs []T) []item {
	out := make([]item, len(xs))
	for i, x := range xs {
		out[i] = kid(x)
	}
	return out
}

func describeOp(n Node) (string, []item) {
	switch n := n.(type) {
	case *WhereOp:
		return "where", []item{kid(n.Pred)}
	case *ProjectOp:
		return "project", nodesOf(n.Cols)
	case *ProjectAwayOp:
		return "project-away", nodesOf(n.Cols)
	case *ProjectKeepOp:
		return "project-keep", nodesOf(n.Cols)
	case *ColumnPattern:
		return "colpat " + q(n.Pattern), nil
	case *ProjectRenameOp:
		return "project-rename", nodesOf(n.Pairs)
	case *RenamePair:
		return "rename " + q(n.New) + " " + q(n.Old), nil
	case *ProjectReorderOp:
		return "project-reorder", nodesOf(n.Cols)
	case *ReorderCol:
		return "reorder " + q(n.Pattern) + attr("order", n.Order), nil
	case *ExtendOp:
		return "extend" + onFlag("-valid", n.Valid), nodesOf(n.Cols)
	case *SummarizeOp:
		return "summarize", []item{listOf("aggs", n.Aggs), listOf("by", n.By)}
	case *SortKey:
		dir := "asc"
		if n.Desc {
			dir = "desc"
		}
		return "key " + dir + attr("written", n.Dir) + attr("nulls", n.Nulls), []item{kid(n.Expr)}
	case *SortOp:
		return "sort keyword=" + n.Keyword, nodesOf(n.Keys)
	case *TopOp:
		return "top", []item{labelled("n", n.N), kid(n.Key)}
	case *TakeOp:
		return "take keyword=" + n.Keyword, []item{kid(n.N)}
	case *CountOp:
		return "count", nil
	case *DistinctOp:
		return "distinct", nodesOf(n.Cols)
	case *GetSchemaOp:
		return "getschema", nil
	case *SampleOp:
		return "sample", []item{kid(n.Fraction)}
	}
	return describeOp2(n)
}

func describeOp2(n Node) (string, []item) {
	switch n := n.(type) {
	case *SearchOp:
		return "search" + attr("kind", n.Kind), []item{listOf("in", n.In), kid(n.Pred)}
	case *ParseItem:
		switch {
		case n.Star:
			return "star", nil
		case n.Name != "":
			typ := ""
			if n.Typed {
				typ = " " + n.Type.String()
			}
			return "capture " + q(n.Name) + typ, nil
		}
		return "const " + q(n.Const), nil
	case *ParseOp:
		head := "parse"
		if n.Where {
			head = "parse-where"
		}
		return head + attr("kind", n.Kind) + attr("flags", n.Flags), append([]item{kid(n.Expr)}, nodesOf(n.Pattern)...)
	case *ParseKvOp:
		return "parse-kv", []item{kid(n.Expr), listOf("keys", n.Keys), listOf("with", n.Options)}
	case *MvExpandCol:
		head := "mvcol"
		if n.Name != "" {
			head += " " + q(n.Name)
		}
		if n.HasTo {
			head += " to=" + n.ToType.String()
		}
		return head, []item{kid(n.Expr)}
	case *MvExpandOp:
		return "mv-expand" + attr("kind", n.Kind) + attr("itemindex", n.ItemIndex), append(nodesOf(n.Cols), labelled("limit", n.Limit))
	case *JoinOp:
		return "join" + attr("kind", n.Kind), []item{kid(n.Right), listOf("on", n.On)}
	case *LookupOp:
		return "lookup" + attr("kind", n.Kind), []item{kid(n.Table), listOf("on", n.On)}
	case *UnionOp:
		return "union" + attr("kind", n.Kind) + attr("withsource", n.WithSource), append([]item{labelled("isfuzzy", n.IsFuzzy)}, nodesOf(n.Tables)...)
	case *MakeSeriesAgg:
		return "agg", []item{kid(n.Agg), labelled("default", n.Default)}
	case *MakeSeriesOp:
		return "make-series", []item{listOf("aggs", n.Aggs), labelled("on", n.On), labelled("from", n.From),
			labelled("to", n.To), labelled("step", n.Step), listOf("by", n.By)}
	case *RedactOp:
		return "redact", []item{labelled("replaceToken", n.ReplaceToken), labelled("replaceHash", n.ReplaceHash),
			labelled("redactGroups", n.RedactGroups), listOf("patterns", n.Patterns), listOf("on", n.On)}
	}
	return describeExpr(n)
}

func describeExpr(n Node) (string, []item) {
	switch n := n.(type) {
	case *Ident:
		return "ident " + q(n.Name) + onFlag(" quoted", n.Quoted), nil
	case *Literal:
		return "lit " + n.Type.String() + " " + dumpValue(n), nil
	case *BinaryExpr:
		return q(n.Op), []item{kid(n.L), kid(n.R)}
	case *UnaryExpr:
		return "unary " + q(n.Op), []item{kid(n.X)}
	case *InExpr:
		return q(n.Op), []item{kid(n.X), listOf("list", n.List)}
	case *BetweenExpr:
		return "between" + onFlag(" not", n.Not), []item{kid(n.X), kid(n.Lo), kid(n.Hi)}
	case *CallExpr:
		return "call " + q(n.Name), nodesOf(n.Args)
	case *NamedArg:
		return "arg " + q(n.Name), []item{kid(n.Value)}
	case *MemberExpr:
		return "member " + q(n.Name), []item{kid(n.X)}
	case *IndexExpr:
		return "index", []item{kid(n.X), kid(n.Index)}
	case *SliceExpr:
		lo, hi := kid(n.Lo), kid(n.Hi)
		lo.label, hi.label = "from", "to"
		return "slice", []item{kid(n.X), lo, hi}
	case *StarExpr:
		return "star", nil
	case *TypeExpr:
		return "type " + n.Type.String(), nil
	case *SubqueryExpr:
		return "subquery", []item{kid(n.Pipe)}
	}
	return "unknown", nil
}

func dumpValue(l *Literal) string {
	switch l.Kind {
	case LitNull:
		return "null"
	case LitString:
		return q(l.Value.(string))
	case LitDateTime:
		return l.Value.(time.Time).Format(time.RFC3339Nano)
	case LitTimeSpan:
		return l.Value.(time.Duration).String()
	case LitDynamic:
		var p printer
		p.json(l.Value)
		return p.b.String()
	case LitReal:
		return formatReal(l.Value.(float64))
	}
	var p printer
	p.literal(l)
	return p.b.String()
}
