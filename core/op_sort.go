package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
)

func (p *planner) planSortKeys(in exec.Schema, keys []*parser.SortKey) ([]plan.SortKey, error) {
	c := p.compilerFor(in)
	var out []plan.SortKey
	for _, k := range keys {
		e, err := c.compile(k.Expr)
		if err != nil {
			return nil, err
		}
		nl := k.Desc
		switch k.Nulls {
		case "first":
			nl = false
		case "last":
			nl = true
		}
		out = append(out, plan.SortKey{X: e.Node, Desc: k.Desc, NullsLast: nl})
	}
	return out, nil
}

func (p *planner) planSort(in exec.Schema, keys []*parser.SortKey) (*step, error) {
	ks, err := p.planSortKeys(in, keys)
	if err != nil {
		return nil, err
	}
	return one(plan.Stage{Kind: plan.SSort, Order: ks}, in), nil
}
