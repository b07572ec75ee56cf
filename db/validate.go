package db

import (
	"context"
	"errors"

	"github.com/aplite/aplite/core/planner/inspect"
	"github.com/aplite/aplite/parser"
)

// Validate parses and plans req without running it (core.Engine.Validate):
// nil when the query would start, else the error Query would return.
func (d *DB) Validate(ctx context.Context, req *Request) error {
	return d.eng.Validate(ctx, req)
}

// ValidateExpr parses expr alone, as a virtual field's expression is
// parsed: nil, or a *QueryError at the position of the first fault. It
// keeps text such as "1 | take 0", which only parses as a pipeline, from
// being taken for an expression.
func ValidateExpr(expr string) error {
	_, err := parser.ParseExpr(expr)
	if err == nil {
		return nil
	}
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return &QueryError{Line: list[0].Pos.Line, Col: list[0].Pos.Col, Msg: list[0].Msg, Kind: "syntax"}
	}
	var one *parser.Error
	if errors.As(err, &one) {
		return &QueryError{Line: one.Pos.Line, Col: one.Pos.Col, Msg: one.Msg, Kind: "syntax"}
	}
	return &QueryError{Line: 1, Col: 1, Msg: err.Error(), Kind: "syntax"}
}

// DatasetRef is a dataset a query names, where it names it
// (inspect.Dataset).
type DatasetRef = inspect.Dataset

// DatasetRefs lists every dataset name apl reads, on every side of a
// union, join or lookup and in subqueries, with its position; a
// permission check of a query stored for later runs sees them all even
// where planning stops early. A query that does not parse has none.
func DatasetRefs(apl string) []DatasetRef {
	q, err := inspect.Parse(apl)
	if err != nil {
		return nil
	}
	return q.Datasets()
}
