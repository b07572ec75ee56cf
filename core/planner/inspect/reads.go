package inspect

import (
	"strings"

	"github.com/aplite/aplite/parser"
)

// Reads is what a query may read, for loaders that keep only that: the
// command line's -in files and the browser's Parquet files, which decode
// only the columns a query can use.
type Reads struct {
	// Tables are the datasets the query names; AnyTable is set when a
	// pattern (['logs-*']) or search may read any of them.
	Tables   []string
	AnyTable bool
	// Keep reports whether the query may read a field, or is nil when it
	// may read any: a `*`, a column pattern, search, getschema, union,
	// join, lookup or pack_all, or a result that keeps the raw events (no
	// summarize, count, project, distinct or make-series). Every
	// identifier and string literal of the query counts as a field name:
	// over-keeping costs only memory.
	Keep func(string) bool
	// Mentions reports whether the query's text names a field (with its
	// parents and children), as Keep does, but is set even when the query
	// may read any field: a file read in place looks further for the
	// fields a query names that its first lines lack.
	Mentions func(string) bool
}

// Reads tells what the query may read.
func (q *Query) Reads() Reads {
	if q.q.Body == nil {
		return Reads{AnyTable: true}
	}
	var r Reads
	for _, d := range q.Datasets() {
		r.Tables = append(r.Tables, d.Name)
		r.AnyTable = r.AnyTable || d.Pattern
	}
	all := true
	for _, op := range q.q.Body.Ops {
		switch op.(type) {
		case *parser.SummarizeOp, *parser.CountOp, *parser.ProjectOp, *parser.DistinctOp, *parser.MakeSeriesOp:
			all = false
		}
	}
	names := map[string]bool{}
	parser.Walk(q.q, func(n parser.Node) bool {
		switch n := n.(type) {
		case *parser.SearchOp:
			all, r.AnyTable = true, true
		case *parser.StarExpr, *parser.ColumnPattern, *parser.GetSchemaOp,
			*parser.UnionOp, *parser.JoinOp, *parser.LookupOp:
			all = true
		case *parser.CallExpr:
			if n.Name == "pack_all" {
				all = true
			}
		case *parser.Ident:
			names[n.Name] = true
		case *parser.MemberExpr:
			if name, ok := memberPath(n); ok {
				names[name] = true
				return false // not its parts: geo.city keeps geo.city, not all of geo
			}
		case *parser.Literal:
			if s, ok := n.Value.(string); ok {
				names[s] = true
			}
		}
		return true
	})
	r.Mentions = func(path string) bool {
		if names[path] {
			return true
		}
		for n := range names { // a parent of a kept path, or a child of one
			if strings.HasPrefix(n, path+".") || strings.HasPrefix(path, n+".") {
				return true
			}
		}
		return false
	}
	if !all {
		r.Keep = r.Mentions
	}
	return r
}

// memberPath is the dotted path of a.b.c, when every part is a name.
func memberPath(e parser.Expr) (string, bool) {
	switch e := e.(type) {
	case *parser.Ident:
		return e.Name, true
	case *parser.MemberExpr:
		if p, ok := memberPath(e.X); ok {
			return p + "." + e.Name, true
		}
	}
	return "", false
}
