package core

import (
	"errors"

	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// unionSchema is the union of the schemas' columns, by name in order of
// first appearance, with types unified.
func unionSchema(schemas ...schema) schema {
	var out schema
	for _, s := range schemas {
		for _, c := range s {
			if i := out.index(c.Name); i >= 0 {
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
func conform(b *batch, from, to schema) (*batch, error) {
	if err := b.compact(); err != nil {
		return nil, err
	}
	vecs := make([]*vector.Vector, len(to))
	for i, c := range to {
		j := from.index(c.Name)
		if j < 0 {
			vecs[i] = vector.NewNulls(c.Type, b.N)
			continue
		}
		vecs[i] = castVector(b.Cols[j], c.Type)
	}
	return newBatch(vecs, b.N), nil
}

// unionPart is one input of a union: its plan and, for withsource, its name.
type unionPart struct {
	pl   *pipeline
	name string
}

// unionSource is `union T1, T2, ...` as a source: every table evaluated
// and appended. Unions of plain datasets become one parallel scan instead.
type unionSource struct {
	sch        schema
	parts      []unionPart
	withSource string
}

func (u *unionSource) schema() schema { return u.sch }

func (u *unionSource) run(x *execCtx, workers int, emit func(int, *batch) error) error {
	for _, p := range u.parts {
		b, err := p.pl.execute(x)
		if err != nil {
			return err
		}
		from := p.pl.out()
		if u.withSource != "" {
			from = append(append(schema(nil), from...), colDef{u.withSource, vector.String})
			b.Cols = append(b.Cols, vector.NewConst(vector.String, p.name, b.N))
		}
		cb, err := conform(b, from, u.sch)
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

// unionSource plans `union` as the first element of a pipeline. first,
// when not nil, is the pipeline that feeds a union operator.
func (p *planner) unionSource(u *parser.UnionOp, first *unionPart) (source, error) {
	if first == nil {
		if names, ok := p.plainDatasets(u); ok {
			snaps, err := p.snapshots(u, names)
			if err != nil {
				return nil, err
			}
			scan := p.newScan(snaps)
			if u.WithSource != "" {
				scan.withSource = u.WithSource
				scan.sch = append(scan.sch, colDef{u.WithSource, vector.String})
			}
			return scan, nil
		}
	}
	us := &unionSource{withSource: u.WithSource}
	if first != nil {
		us.parts = append(us.parts, *first)
	}
	for _, t := range u.Tables {
		name := ""
		if ref, ok := t.Source.(*parser.TableRef); ok && len(t.Ops) == 0 && ref.Pattern {
			for _, ds := range p.matchDatasets(ref.Name) {
				pl, err := p.planPipeline(&parser.Pipeline{Sp: t.Sp, Source: &parser.TableRef{Sp: ref.Sp, Name: ds}})
				if err != nil {
					return nil, err
				}
				us.parts = append(us.parts, unionPart{pl: pl, name: ds})
			}
			continue
		}
		if ref, ok := t.Source.(*parser.TableRef); ok {
			name = ref.Name
		}
		pl, err := p.planPipeline(t)
		if err != nil {
			return nil, err
		}
		us.parts = append(us.parts, unionPart{pl: pl, name: name})
	}
	var schemas []schema
	for _, pt := range us.parts {
		schemas = append(schemas, pt.pl.out())
	}
	us.sch = unionSchema(schemas...)
	if u.WithSource != "" && us.sch.index(u.WithSource) < 0 {
		us.sch = append(us.sch, colDef{u.WithSource, vector.String})
	}
	return us, nil
}

// plainDatasets reports the dataset names of a union made only of dataset
// references (wildcards expanded).
func (p *planner) plainDatasets(u *parser.UnionOp) ([]string, bool) {
	var names []string
	for _, t := range u.Tables {
		ref, ok := t.Source.(*parser.TableRef)
		if !ok || len(t.Ops) != 0 {
			return nil, false
		}
		if _, isLet := p.tables[ref.Name]; isLet {
			return nil, false
		}
		if ref.Pattern {
			names = append(names, p.matchDatasets(ref.Name)...)
			continue
		}
		if p.cat() == nil {
			return nil, false
		}
		snap, err := p.cat().Snapshot(ref.Name)
		if err != nil {
			return nil, false
		}
		snap.Release()
		names = append(names, ref.Name)
	}
	return names, len(names) > 0
}

// unionStage is `T | union U, V`: the input followed by the other tables.
type unionStage struct {
	in  schema
	src *unionSource
}

func (p *planner) planUnionOp(in schema, u *parser.UnionOp) (stage, error) {
	// The first part is the stage's own input, known only when the stage
	// finishes: finish hands it over as run state of this table source.
	input := &tableSource{sch: in, eval: func(*execCtx) (*batch, error) {
		return nil, errors.New("union: input not collected before the union ran")
	}}
	src, err := p.unionSource(u, &unionPart{pl: &pipeline{src: input}})
	if err != nil {
		return nil, err
	}
	return &unionStage{in: in, src: src.(*unionSource)}, nil
}

func (u *unionStage) out() schema { return u.src.sch }

func (u *unionStage) newSink(*execCtx) (sink, error) { return &collectSink{}, nil }

func (u *unionStage) finish(x *execCtx, sinks []sink) (*batch, error) {
	input, err := (&collectStage{sch: u.in}).finish(x, sinks)
	if err != nil {
		return nil, err
	}
	if _, err := x.runs.do(u.src.parts[0].pl.src, func() (any, error) { return input, nil }); err != nil {
		return nil, err
	}
	var parts []*batch
	err = u.src.run(x, 1, func(_ int, b *batch) error {
		parts = append(parts, b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return emptyBatch(u.src.sch), nil
	}
	return concat(u.src.sch, parts)
}
