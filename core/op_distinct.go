package core

import (
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// distinctStage is `distinct a, b` / `distinct *`: the distinct tuples,
// computed with the same group table as summarize.
type distinctStage struct {
	sch   schema
	exprs []*expr
}

func (p *planner) planDistinct(in schema, op *parser.DistinctOp) (stage, error) {
	st := &distinctStage{}
	c := p.compilerFor(in)
	for _, ce := range op.Cols {
		if _, star := ce.(*parser.StarExpr); star {
			for i, col := range in {
				st.exprs = append(st.exprs, colExpr(i, col, ce.Span()))
				st.sch = append(st.sch, col)
			}
			continue
		}
		e, err := c.compile(ce)
		if err != nil {
			return nil, err
		}
		name := e.name
		if name == "" || e.col < 0 {
			name = byName(ce, e, st.sch)
		}
		st.exprs = append(st.exprs, e)
		st.sch = append(st.sch, colDef{name, e.typ})
	}
	return st, nil
}

func (s *distinctStage) out() schema { return s.sch }

type distinctSink struct {
	st   *distinctStage
	g    *groupTable
	gbuf []uint32
}

func (s *distinctStage) newSink(*execCtx) (sink, error) {
	types := make([]vector.Type, len(s.sch))
	for i, c := range s.sch {
		types[i] = c.Type
	}
	return &distinctSink{st: s, g: newGroupTable(types)}, nil
}

func (d *distinctSink) full() bool { return false }

func (d *distinctSink) consume(x *execCtx, b *batch) error {
	rows := b.Rows()
	cols := make([]*vector.Vector, len(d.st.exprs))
	for i, e := range d.st.exprs {
		v, err := e.run(x, b)
		if err != nil {
			return err
		}
		cols[i] = v
	}
	if cap(d.gbuf) < rows {
		d.gbuf = make([]uint32, rows)
	}
	before := d.g.n
	d.g.assign(cols, b.Sel, b.N, d.gbuf[:rows])
	return x.budget.charge(int64(d.g.n-before) * int64(16*len(cols)+32))
}

func (s *distinctStage) finish(x *execCtx, sinks []sink) (*batch, error) {
	base := sinks[0].(*distinctSink).g
	for _, o := range sinks[1:] {
		base.mergeInto(o.(*distinctSink).g)
	}
	return newBatch(base.keys, base.n), nil
}
