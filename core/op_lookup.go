package core

import (
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

// planLookup plans `lookup [kind=leftouter|inner] Table on cond, ...`: a
// join that enriches the left rows with the lookup table's columns,
// leftouter by default, without repeating the table's key columns.
func (p *planner) planLookup(in exec.Schema, op *parser.LookupOp) (*step, error) {
	var kind string
	switch strings.ToLower(op.Kind) {
	case "", "leftouter":
		kind = "leftouter"
	case "inner":
		kind = "inner"
	default:
		return nil, semErr(op, "unknown lookup kind %q (want leftouter or inner)", op.Kind)
	}
	return p.newJoin(in, op, kind, op.Table, op.On, true)
}
