package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

// planMoreOps plans the operators beyond the core set (parse, mv-expand,
// join, lookup, make-series, ...). It returns nil, nil for an operator it
// does not know, so planOp can report it.
func (p *planner) planMoreOps(in exec.Schema, op parser.Operator) (*step, error) {
	switch op := op.(type) {
	case *parser.SearchOp:
		return p.planSearch(in, op)
	case *parser.JoinOp:
		return p.planJoin(in, op)
	case *parser.LookupOp:
		return p.planLookup(in, op)
	case *parser.MvExpandOp:
		return p.planMvExpand(in, op)
	case *parser.ParseOp:
		return p.planParse(in, op)
	case *parser.ParseKvOp:
		return p.planParseKv(in, op)
	case *parser.MakeSeriesOp:
		return p.planMakeSeries(in, op)
	case *parser.SampleOp:
		return p.planSample(in, op)
	case *parser.RedactOp:
		return p.planRedact(in, op)
	}
	return nil, nil
}
