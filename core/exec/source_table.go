package exec

import (
	"github.com/aplite/aplite/vector"
)

// TableSource emits one materialized batch: datatable, print, and
// evaluated let tables.
type TableSource struct {
	Sch Schema
	// B is the batch of a table known when planning (datatable, print).
	B *Batch
	// Eval, when set, computes the batch on first use in a run (let
	// tables); the rows are run state (x.runs), never kept on the plan.
	Eval func(x *Ctx) (*Batch, error)
	// sub is the pipeline eval runs, kept so the source has a plan form
	// (build_pipeline.go); nil for a union's input placeholder.
	sub *Pipeline
}

// Schema implements Source.
func (t *TableSource) Schema() Schema { return t.Sch }

// Run implements Source.
func (t *TableSource) Run(x *Ctx, workers int, emit func(int, *Batch) error) error {
	b := t.B
	if b == nil && t.Eval != nil {
		v, err := x.runs.do(t, func() (any, error) { return t.Eval(x) })
		if err != nil {
			return err
		}
		b = v.(*Batch)
	}
	if b == nil || b.Rows() == 0 {
		return nil
	}
	// Hand out a shallow copy: stages may replace sel and column slots.
	cp := *b
	cp.Cols = append([]*vector.Vector(nil), b.Cols...)
	return emit(0, &cp)
}

// emptyBatch returns a batch with the schema's columns and no rows.
func emptyBatch(s Schema) *Batch {
	vecs := make([]*vector.Vector, len(s))
	for i, c := range s {
		vecs[i] = vector.New(c.Type, 0)
	}
	return NewBatch(vecs, 0)
}
