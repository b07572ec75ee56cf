// Package inspect answers the questions asked of a query before it is
// planned, from its syntax alone: which datasets it names and where (so
// a stored query's permissions can be checked), which fields it may read
// (so a loader decodes only those), whether it takes N rows of one
// dataset through row-by-row operators (so a loader may stop after N
// answers), and whether it is a bare dataset name (so an export may
// stream the file). The command line, the browser and the server ask
// them through db; the planner does not: a question's answer only narrows
// what is loaded, never what the query means.
//
// Every answer errs on the safe side: a query the package does not
// recognise reads everything and takes nothing.
package inspect

import "github.com/aplite/aplite/parser"

// Query is a parsed query to ask questions of.
type Query struct {
	q *parser.Query
}

// Parse parses apl. A query that does not parse is an error, which the
// engine reports in full when the query is run.
func Parse(apl string) (*Query, error) {
	q, err := parser.Parse(apl)
	if err != nil {
		return nil, err
	}
	return &Query{q: q}, nil
}

// Of wraps a query already parsed.
func Of(q *parser.Query) *Query { return &Query{q: q} }

// pipeline returns the query's body when the query is a pipeline over
// the one dataset table (no pattern, no let or set statement before it),
// and nil otherwise.
func (q *Query) pipeline(table string) *parser.Pipeline {
	b := q.q.Body
	if b == nil || len(q.q.Stmts) > 0 {
		return nil
	}
	if src, ok := b.Source.(*parser.TableRef); !ok || src.Pattern || src.Name != table {
		return nil
	}
	return b
}

// Table returns the dataset a query is the bare name of (`logs`), the
// query whose answer is the dataset's rows as they are.
func (q *Query) Table() (string, bool) {
	b := q.q.Body
	if b == nil || len(b.Ops) > 0 {
		return "", false
	}
	src, ok := b.Source.(*parser.TableRef)
	if !ok || q.pipeline(src.Name) == nil {
		return "", false
	}
	return src.Name, true
}

// Take returns N when the query takes N rows of table after operators
// that keep, drop or reshape rows one at a time (`logs | where ... |
// extend ... | take N`): any N rows that pass them are a right answer,
// so a loader may stop once it has N. ok is false for any other query.
func (q *Query) Take(table string) (n int64, ok bool) {
	b := q.pipeline(table)
	if b == nil || len(b.Ops) == 0 {
		return 0, false
	}
	ops := b.Ops
	take, ok := ops[len(ops)-1].(*parser.TakeOp)
	if !ok {
		return 0, false
	}
	lit, ok := take.N.(*parser.Literal)
	if !ok || lit.Kind != parser.LitInt {
		return 0, false
	}
	if n, ok = lit.Value.(int64); !ok || n < 0 {
		return 0, false
	}
	for _, op := range ops[:len(ops)-1] {
		if !rowByRow(op) {
			return 0, false
		}
	}
	return n, true
}

// rowByRow reports whether op decides each row's output from that row
// alone, so that the answer over some rows is part of the answer over all.
func rowByRow(op parser.Operator) bool {
	switch op.(type) {
	case *parser.WhereOp, *parser.ExtendOp, *parser.ProjectOp, *parser.ProjectAwayOp,
		*parser.ProjectKeepOp, *parser.ProjectRenameOp, *parser.ParseOp:
		return true
	}
	return false
}
