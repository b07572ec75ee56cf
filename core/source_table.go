package core

import (
	"github.com/aplite/aplite/vector"
)

// tableSource emits one materialized batch: datatable, print, and
// evaluated let tables.
type tableSource struct {
	sch schema
	b   *batch
	// eval, when set, computes b lazily on first run (let tables).
	eval func(x *execCtx) (*batch, error)
}

func (t *tableSource) schema() schema { return t.sch }

func (t *tableSource) run(x *execCtx, workers int, emit func(int, *batch) error) error {
	if t.b == nil && t.eval != nil {
		b, err := t.eval(x)
		if err != nil {
			return err
		}
		t.b = b
	}
	if t.b == nil || t.b.rows() == 0 {
		return nil
	}
	// Hand out a shallow copy: stages may replace sel and column slots.
	cp := *t.b
	cp.vecs = append([]*vector.Vector(nil), t.b.vecs...)
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
