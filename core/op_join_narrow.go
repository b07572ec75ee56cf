package core

import (
	"strings"

	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
)

// narrowRight appends a nulls stage to a join's right pipeline when
// some right columns are neither output (cols) nor read by a condition
// (rights: the right operand of each key).
func narrowRight(right *pipe, cols []int, rights []parser.Expr) {
	keep := make([]bool, len(right.out))
	for _, c := range cols {
		keep[c] = true
	}
	names := map[string]bool{}
	for _, rx := range rights {
		parser.Walk(rx, func(n parser.Node) bool {
			switch n := n.(type) {
			case *parser.Ident:
				names[n.Name] = true
			case *parser.MemberExpr:
				if d, ok := dottedName(n); ok {
					names[strings.TrimPrefix(d, "$right.")] = true
				}
			case *parser.Literal:
				if s, ok := n.Value.(string); ok {
					names[s] = true
				}
			}
			return true
		})
	}
	var idx []int
	for i, c := range right.out {
		if !keep[i] && !names[c.Name] {
			idx = append(idx, i)
		}
	}
	if idx != nil {
		right.Stages = append(right.Stages, plan.Stage{Kind: plan.SNulls, Idx: idx})
	}
}
