package core

import (
	"strings"

	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// unusedNullStage replaces the columns a join does not read from its
// right side with constant nulls, so collecting the right side decodes
// only the key columns and the columns the join outputs. Column positions
// stay the same, so compiled key expressions keep working.
type unusedNullStage struct {
	sch  schema
	keep []bool
}

func (s *unusedNullStage) out() schema { return s.sch }

func (s *unusedNullStage) apply(x *execCtx, b *batch) (*batch, error) {
	nb := withColumns(b)
	for i, k := range s.keep {
		if !k {
			nb.Cols[i] = vector.NewNulls(s.sch[i].Type, b.N)
		}
	}
	return nb, nil
}

// narrowRight appends an unusedNullStage to the join's right pipeline
// when some right columns are neither output nor read by a condition
// (rights: the right operand of each key).
func narrowRight(j *joinSpec, rights []parser.Expr) {
	keep := make([]bool, len(j.right))
	for _, c := range j.rightCols {
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
	for i, c := range j.right {
		if !keep[i] && names[c.Name] {
			keep[i] = true
		}
		dropped = dropped || !keep[i]
	}
	if dropped {
		j.rightPl.stages = append(j.rightPl.stages, &unusedNullStage{sch: j.right, keep: keep})
	}
}
