package exec

import (
	"github.com/aplite/aplite/vector"
)

// projectStage selects and computes the output columns. Plain column
// references are remapped without decoding; computed ones are evaluated.
type projectStage struct {
	Sch   Schema
	Exprs []*Expr
}

// Out implements Stage.
func (s *projectStage) Out() Schema { return s.Sch }

func (s *projectStage) keepsNothing() {}

// Apply implements streamStage.
func (s *projectStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
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

// pickStage keeps columns by index: project-away, project-keep,
// project-rename and project-reorder all reduce to it.
type pickStage struct {
	Sch Schema
	Idx []int
}

// Out implements Stage.
func (s *pickStage) Out() Schema { return s.Sch }

// Apply implements streamStage.
func (s *pickStage) Apply(x *Ctx, b *Batch) (*Batch, error) { return remap(b, s.Idx), nil }
