package exec

import "github.com/aplite/aplite/vector"

// countStage is the `count` operator: one row, one column with the number
// of input rows.
type countStage struct{}

// Out implements Stage.
func (c *countStage) Out() Schema { return Schema{{Name: "count", Type: vector.Int}} }

type countSink struct{ n int64 }

// NewSink implements blockStage.
func (c *countStage) NewSink(*Ctx) (sink, error) { return &countSink{}, nil }

func (s *countSink) keepsNothing() {}

func (s *countSink) consume(x *Ctx, b *Batch) error { s.n += int64(b.Rows()); return nil }

// Full implements sink.
func (s *countSink) Full() bool { return false }

// Finish implements blockStage.
func (c *countStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	var n int64
	for _, s := range sinks {
		n += s.(*countSink).n
	}
	v := vector.New(vector.Int, 1)
	v.AppendInt(n)
	return NewBatch([]*vector.Vector{v}, 1), nil
}
