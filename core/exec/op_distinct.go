package exec

import (
	"github.com/aplite/aplite/vector"
)

// distinctStage is `distinct a, b` / `distinct *`: the distinct tuples,
// computed with the same group table as summarize.
type distinctStage struct {
	Sch   Schema
	Exprs []*Expr
}

// Out implements Stage.
func (s *distinctStage) Out() Schema { return s.Sch }

type distinctSink struct {
	st   *distinctStage
	g    *groupTable
	gbuf []uint32
}

// NewSink implements blockStage.
func (s *distinctStage) NewSink(*Ctx) (sink, error) {
	types := make([]vector.Type, len(s.Sch))
	for i, c := range s.Sch {
		types[i] = c.Type
	}
	return &distinctSink{st: s, g: newGroupTable(types)}, nil
}

// Full implements sink.
func (d *distinctSink) Full() bool { return false }

func (d *distinctSink) consume(x *Ctx, b *Batch) error {
	rows := b.Rows()
	cols := make([]*vector.Vector, len(d.st.Exprs))
	for i, e := range d.st.Exprs {
		v, err := e.Run(x, b)
		if err != nil {
			return err
		}
		cols[i] = v
	}
	if cap(d.gbuf) < rows {
		d.gbuf = make([]uint32, rows)
	}
	before := d.g.N
	d.g.assign(cols, b.Sel, b.N, d.gbuf[:rows])
	return x.Budget.Charge(int64(d.g.N-before) * int64(16*len(cols)+32))
}

// Finish implements blockStage.
func (s *distinctStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	base := sinks[0].(*distinctSink).g
	for _, o := range sinks[1:] {
		base.mergeInto(o.(*distinctSink).g)
	}
	return NewBatch(base.keys, base.N), nil
}
