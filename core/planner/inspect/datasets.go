package inspect

import "github.com/aplite/aplite/parser"

// Dataset is a dataset a query names, where it names it.
type Dataset struct {
	Name      string
	Line, Col int
	// Pattern is set for a wildcard (['logs-*']), which matches only the
	// datasets the caller may read.
	Pattern bool
}

// Datasets lists every dataset name the query reads, in the order of the
// text, on every side of a union, join or lookup and in subqueries, with
// its position: a permission check of a query stored for later runs sees
// them all even where planning would stop early.
func (q *Query) Datasets() []Dataset {
	var out []Dataset
	parser.Walk(q.q, func(n parser.Node) bool {
		if t, ok := n.(*parser.TableRef); ok {
			sp := t.Span().Start
			out = append(out, Dataset{Name: t.Name, Line: sp.Line, Col: sp.Col, Pattern: t.Pattern})
		}
		return true
	})
	return out
}
