package core

import (
	"github.com/aplite/aplite/vector"
)

// tableSource emits one materialized batch: datatable, print, and
// evaluated let tables.
type tableSource struct {
	sch schema
	// b is the batch of a table known when planning (datatable, print).
	b *batch
	// eval, when set, computes the batch on first use in a run (let
	// tables); the rows are run state (x.runs), never kept on the plan.
	eval func(x *execCtx) (*batch, error)
	// sub is the pipeline eval runs, kept so the source has a plan form
	// (plan_pipeline.go); nil for a union's input placeholder.
	sub *pipeline
}

func (t *tableSource) schema() schema { return t.sch }

func (t *tableSource) run(x *execCtx, workers int, emit func(int, *batch) error) error {
	b := t.b
	if b == nil && t.eval != nil {
		v, err := x.runs.do(t, func() (any, error) { return t.eval(x) })
		if err != nil {
			return err
		}
		b = v.(*batch)
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
func emptyBatch(s schema) *batch {
	vecs := make([]*vector.Vector, len(s))
	for i, c := range s {
		vecs[i] = vector.New(c.Type, 0)
	}
	return newBatch(vecs, 0)
}
