package core

import "github.com/aplite/aplite/vector"

// countStage is the `count` operator: one row, one column with the number
// of input rows.
type countStage struct{}

func (c *countStage) out() schema { return schema{{"count", vector.Int}} }

type countSink struct{ n int64 }

func (c *countStage) newSink(*execCtx) (sink, error) { return &countSink{}, nil }

func (s *countSink) keepsNothing() {}

func (s *countSink) consume(x *execCtx, b *batch) error { s.n += int64(b.Rows()); return nil }

func (s *countSink) full() bool { return false }

func (c *countStage) finish(x *execCtx, sinks []sink) (*batch, error) {
	var n int64
	for _, s := range sinks {
		n += s.(*countSink).n
	}
	v := vector.New(vector.Int, 1)
	v.AppendInt(n)
	return newBatch([]*vector.Vector{v}, 1), nil
}
