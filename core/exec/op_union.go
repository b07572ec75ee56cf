package exec

import (
	"github.com/aplite/aplite/vector"
)

// UnionSchema is the union of the schemas' columns, by name in order of
// first appearance, with types unified.
func UnionSchema(schemas ...Schema) Schema {
	var out Schema
	for _, s := range schemas {
		for _, c := range s {
			if i := out.Index(c.Name); i >= 0 {
				out[i].Type = unifyTypes(out[i].Type, c.Type)
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// conform maps a dense batch with schema from onto schema to: missing
// columns become nulls, types are converted.
func conform(b *Batch, from, to Schema) (*Batch, error) {
	if err := b.LoadCompact(); err != nil {
		return nil, err
	}
	vecs := make([]*vector.Vector, len(to))
	for i, c := range to {
		j := from.Index(c.Name)
		if j < 0 {
			vecs[i] = vector.NewNulls(c.Type, b.N)
			continue
		}
		vecs[i] = castVector(b.Cols[j], c.Type)
	}
	return NewBatch(vecs, b.N), nil
}

// unionPart is one input of a union: its plan and, for withsource, its name.
type unionPart struct {
	Pl   *Pipeline
	Name string
}

// UnionSource is `union T1, T2, ...` as a source: every table evaluated
// and appended. Unions of plain datasets become one parallel scan instead.
type UnionSource struct {
	Sch        Schema
	Parts      []unionPart
	WithSource string
}

// Schema implements Source.
func (u *UnionSource) Schema() Schema { return u.Sch }

// Run implements Source.
func (u *UnionSource) Run(x *Ctx, workers int, emit func(int, *Batch) error) error {
	for _, p := range u.Parts {
		b, err := p.Pl.Execute(x)
		if err != nil {
			return err
		}
		from := p.Pl.Out()
		if u.WithSource != "" {
			from = append(append(Schema(nil), from...), ColDef{Name: u.WithSource, Type: vector.String})
			b.Cols = append(b.Cols, vector.NewConst(vector.String, p.Name, b.N))
		}
		cb, err := conform(b, from, u.Sch)
		if err != nil {
			return err
		}
		if cb.N > 0 {
			if err := emit(0, cb); err != nil {
				return err
			}
		}
	}
	return nil
}

// unionStage is `T | union U, V`: the input followed by the other tables.
type unionStage struct {
	In  Schema
	Src *UnionSource
}

// Out implements Stage.
func (u *unionStage) Out() Schema { return u.Src.Sch }

// NewSink implements blockStage.
func (u *unionStage) NewSink(*Ctx) (sink, error) { return &collectSink{}, nil }

// Finish implements blockStage.
func (u *unionStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	input, err := (&collectStage{Sch: u.In}).Finish(x, sinks)
	if err != nil {
		return nil, err
	}
	if _, err := x.runs.do(u.Src.Parts[0].Pl.Src, func() (any, error) { return input, nil }); err != nil {
		return nil, err
	}
	var parts []*Batch
	err = u.Src.Run(x, 1, func(_ int, b *Batch) error {
		parts = append(parts, b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return emptyBatch(u.Src.Sch), nil
	}
	return concat(u.Src.Sch, parts)
}
