package parser

// Walk visits n and every node below it in pre-order (source order). When
// f returns false the children of that node are skipped. Nil children are
// not visited.
func Walk(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	switch n := n.(type) {
	case *Query:
		for _, s := range n.Stmts {
			Walk(s, f)
		}
		walkPipe(n.Body, f)
	case *SetStmt:
		walkExpr(n.Value, f)
	case *LetStmt:
		walkExpr(n.Expr, f)
		walkPipe(n.Tabular, f)
	case *Pipeline:
		Walk(n.Source, f)
		for _, op := range n.Ops {
			Walk(op, f)
		}
	case *DatatableSource:
		walkDecls(n.Cols, f)
		walkExprs(n.Values, f)
	case *PrintSource:
		walkNamed(n.Cols, f)
	case *ExternalDataSource:
		walkDecls(n.Cols, f)
		walkNamed(n.Options, f)
	case *ParenSource:
		walkPipe(n.Pipe, f)
	case *NamedExpr:
		walkExpr(n.Expr, f)
	default:
		walkOp(n, f)
	}
}

func walkOp(n Node, f func(Node) bool) {
	switch n := n.(type) {
	case *WhereOp:
		walkExpr(n.Pred, f)
	case *ProjectOp:
		walkNamed(n.Cols, f)
	case *ProjectAwayOp:
		for _, c := range n.Cols {
			Walk(c, f)
		}
	case *ProjectKeepOp:
		for _, c := range n.Cols {
			Walk(c, f)
		}
	case *ProjectRenameOp:
		for _, p := range n.Pairs {
			Walk(p, f)
		}
	case *ProjectReorderOp:
		for _, c := range n.Cols {
			Walk(c, f)
		}
	case *ExtendOp:
		walkNamed(n.Cols, f)
	case *SummarizeOp:
		walkNamed(n.Aggs, f)
		walkNamed(n.By, f)
	case *SortOp:
		for _, k := range n.Keys {
			Walk(k, f)
		}
	case *SortKey:
		walkExpr(n.Expr, f)
	case *TopOp:
		walkExpr(n.N, f)
		if n.Key != nil {
			Walk(n.Key, f)
		}
	case *TakeOp:
		walkExpr(n.N, f)
	case *DistinctOp:
		walkExprs(n.Cols, f)
	case *SampleOp:
		walkExpr(n.Fraction, f)
	default:
		walkOp2(n, f)
	}
}

func walkOp2(n Node, f func(Node) bool) {
	switch n := n.(type) {
	case *SearchOp:
		for _, t := range n.In {
			Walk(t, f)
		}
		walkExpr(n.Pred, f)
	case *ParseOp:
		walkExpr(n.Expr, f)
		for _, it := range n.Pattern {
			Walk(it, f)
		}
	case *ParseKvOp:
		walkExpr(n.Expr, f)
		walkDecls(n.Keys, f)
		walkNamed(n.Options, f)
	case *MvExpandOp:
		for _, c := range n.Cols {
			Walk(c, f)
		}
		walkExpr(n.Limit, f)
	case *MvExpandCol:
		walkExpr(n.Expr, f)
	case *JoinOp:
		walkPipe(n.Right, f)
		walkExprs(n.On, f)
	case *LookupOp:
		walkPipe(n.Table, f)
		walkExprs(n.On, f)
	case *UnionOp:
		walkExpr(n.IsFuzzy, f)
		for _, t := range n.Tables {
			walkPipe(t, f)
		}
	case *MakeSeriesOp:
		for _, a := range n.Aggs {
			Walk(a, f)
		}
		walkExpr(n.On, f)
		walkExpr(n.From, f)
		walkExpr(n.To, f)
		walkExpr(n.Step, f)
		walkNamed(n.By, f)
	case *MakeSeriesAgg:
		if n.Agg != nil {
			Walk(n.Agg, f)
		}
		walkExpr(n.Default, f)
	case *RedactOp:
		walkExpr(n.ReplaceToken, f)
		walkExpr(n.ReplaceHash, f)
		walkExpr(n.RedactGroups, f)
		walkExprs(n.Patterns, f)
		walkExprs(n.On, f)
	default:
		walkExprChildren(n, f)
	}
}

func walkExprChildren(n Node, f func(Node) bool) {
	switch n := n.(type) {
	case *BinaryExpr:
		walkExpr(n.L, f)
		walkExpr(n.R, f)
	case *UnaryExpr:
		walkExpr(n.X, f)
	case *InExpr:
		walkExpr(n.X, f)
		walkExprs(n.List, f)
	case *BetweenExpr:
		walkExpr(n.X, f)
		walkExpr(n.Lo, f)
		walkExpr(n.Hi, f)
	case *CallExpr:
		walkExprs(n.Args, f)
	case *NamedArg:
		walkExpr(n.Value, f)
	case *MemberExpr:
		walkExpr(n.X, f)
	case *IndexExpr:
		walkExpr(n.X, f)
		walkExpr(n.Index, f)
	case *SliceExpr:
		walkExpr(n.X, f)
		walkExpr(n.Lo, f)
		walkExpr(n.Hi, f)
	case *SubqueryExpr:
		walkPipe(n.Pipe, f)
	}
	// Leaves: TableRef, ColumnDecl, ColumnPattern, RenamePair, ReorderCol,
	// CountOp, GetSchemaOp, ParseItem, Ident, Literal, StarExpr, TypeExpr.
}

func walkExpr(e Expr, f func(Node) bool) {
	if e != nil {
		Walk(e, f)
	}
}

func walkPipe(p *Pipeline, f func(Node) bool) {
	if p != nil {
		Walk(p, f)
	}
}

func walkExprs(es []Expr, f func(Node) bool) {
	for _, e := range es {
		walkExpr(e, f)
	}
}

func walkNamed(ns []*NamedExpr, f func(Node) bool) {
	for _, n := range ns {
		Walk(n, f)
	}
}

func walkDecls(ds []*ColumnDecl, f func(Node) bool) {
	for _, d := range ds {
		Walk(d, f)
	}
}
