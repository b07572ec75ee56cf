package exec

import (
	"github.com/aplite/aplite/vector"
)

// ProjectStage selects and computes the output columns. Plain column
// references are remapped without decoding; computed ones are evaluated.
type ProjectStage struct {
	Sch   Schema
	Exprs []*Expr
}

// Out implements Stage.
func (s *ProjectStage) Out() Schema { return s.Sch }

func (s *ProjectStage) keepsNothing() {}

// Apply implements streamStage.
func (s *ProjectStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	nb := &Batch{Batch: vector.Batch{Cols: make([]*vector.Vector, len(s.Exprs)), N: b.N, Sel: b.Sel}, scratch: b.scratch}
	for i, e := range s.Exprs {
		if e.Col >= 0 && e.Eval != nil {
			// A plain column stays lazy: decoded only if someone reads it.
			nb.Cols[i] = b.Cols[e.Col]
			continue
		}
		v, err := e.Run(x, b)
		if err != nil {
			return nil, err
		}
		nb.Cols[i] = v
	}
	nb.load = func(i int) (*vector.Vector, error) { return b.Col(s.Exprs[i].Col) }
	return nb, nil
}

// PickStage keeps columns by index: project-away, project-keep,
// project-rename and project-reorder all reduce to it.
type PickStage struct {
	Sch Schema
	Idx []int
}

// Out implements Stage.
func (s *PickStage) Out() Schema { return s.Sch }

// Apply implements streamStage.
func (s *PickStage) Apply(x *Ctx, b *Batch) (*Batch, error) { return remap(b, s.Idx), nil }
