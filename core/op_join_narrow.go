package core

import (
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
)

// narrowRight appends an unusedNullStage to the join's right pipeline
// when some right columns are neither output nor read by a condition
// (rights: the right operand of each key).
func narrowRight(j *exec.JoinSpec, rights []parser.Expr) {
	keep := make([]bool, len(j.Right))
	for _, c := range j.RightCols {
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
	dropped := false
	for i, c := range j.Right {
		if !keep[i] && names[c.Name] {
			keep[i] = true
		}
		dropped = dropped || !keep[i]
	}
	if dropped {
		j.RightPl.Stages = append(j.RightPl.Stages, &exec.UnusedNullStage{Sch: j.Right, Keep: keep})
	}
}
