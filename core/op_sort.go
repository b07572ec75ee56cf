package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

func (p *planner) planSortKeys(in exec.Schema, keys []*parser.SortKey) ([]exec.SortKey, error) {
	c := p.compilerFor(in)
	var out []exec.SortKey
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
		out = append(out, exec.SortKey{E: e, Desc: k.Desc, NullsLast: nl})
	}
	return out, nil
}

func (p *planner) planSort(in exec.Schema, keys []*parser.SortKey) (exec.Stage, error) {
	ks, err := p.planSortKeys(in, keys)
	if err != nil {
		return nil, err
	}
	return &exec.SortStage{In: in, Keys: ks}, nil
}
