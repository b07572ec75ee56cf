package exec

import (
	"github.com/aplite/aplite/vector"
)

// unusedNullStage replaces the columns a join does not read from its
// right side with constant nulls, so collecting the right side decodes
// only the key columns and the columns the join outputs. Column positions
// stay the same, so compiled key expressions keep working.
type unusedNullStage struct {
	Sch  Schema
	Keep []bool
}

// Out implements Stage.
func (s *unusedNullStage) Out() Schema { return s.Sch }

// Apply implements streamStage.
func (s *unusedNullStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	nb := withColumns(b)
	for i, k := range s.Keep {
		if !k {
			nb.Cols[i] = vector.NewNulls(s.Sch[i].Type, b.N)
		}
	}
	return nb, nil
}
