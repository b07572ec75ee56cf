package core

import (
	"context"

	"github.com/aplite/aplite/core/fn"
)

// execCtx is the per-query execution state shared by every operator.
type execCtx struct {
	ctx     context.Context
	fn      *fn.Context
	stats   *scanStats
	budget  *memBudget
	workers int
	cache   *cacheView
	intern  *interner
	preds   *dictMemo
	sorted  *sortedTimes
	// finals are the merged groups of each summarize of the run (answer.go).
	finals finalStates
	// runs holds what operators compute once per run (runstate.go).
	runs runState
	// detach is set when the run reads streams: collected rows copy their
	// strings out of the decoded chunks (detach.go).
	detach bool
}

// source produces the first batches of a pipeline. run may call emit from
// several goroutines at once, each with its own worker number in
// [0, workers); emit's error stops the source.
type source interface {
	schema() schema
	run(x *execCtx, workers int, emit func(worker int, b *batch) error) error
}

// stage is one operator after the source.
type stage interface {
	out() schema
}

// streamStage transforms one batch at a time and keeps no state between
// batches, so it runs inside the parallel scan workers. apply may return
// the same batch (modified) or a new one; a batch with no live rows may be
// returned as nil to drop it.
type streamStage interface {
	stage
	apply(x *execCtx, b *batch) (*batch, error)
}

// blockStage needs all of its input before it answers (summarize, sort,
// top, distinct, ...). Each scan worker feeds its own sink; finish merges
// the sinks into the single output batch. Sinks are used by one goroutine.
type blockStage interface {
	stage
	newSink(x *execCtx) (sink, error)
	finish(x *execCtx, sinks []sink) (*batch, error)
}

// sink accumulates the input of a blockStage.
type sink interface {
	consume(x *execCtx, b *batch) error
	// full reports that more input cannot change the answer (take N has N
	// rows), so the scan may stop early.
	full() bool
}

// pipeline is a planned tabular expression.
type pipeline struct {
	src    source
	stages []stage
}

// out returns the output schema.
func (p *pipeline) out() schema {
	if len(p.stages) == 0 {
		return p.src.schema()
	}
	return p.stages[len(p.stages)-1].out()
}

// execute runs the pipeline: the source and the streaming stages up to the
// first blocking stage run in parallel workers, each feeding a sink of that
// stage; the remaining stages run on the merged result.
func (p *pipeline) execute(x *execCtx) (*batch, error) {
	k, blk := p.firstBlocking()
	sinks, err := p.scanToSinks(x, p.src, k, blk)
	if err != nil {
		return nil, err
	}
	res, err := blk.finish(x, sinks)
	if err != nil {
		return nil, err
	}
	if k >= len(p.stages) {
		return res, nil
	}
	return runStages(x, p.stages[k+1:], res)
}

// scanToSinks runs src and the streaming stages before stage k in the
// scan workers, each feeding its own sink of blk, and returns the sinks.
// Distributed queries call it with a scan of part of the blocks.
func (p *pipeline) scanToSinks(x *execCtx, src source, k int, blk blockStage) ([]sink, error) {
	workers := max(x.workers, 1)
	sinks := make([]sink, workers)
	for i := range sinks {
		s, err := blk.newSink(x)
		if err != nil {
			return nil, err
		}
		sinks[i] = s
	}
	scr := scratchFor(p.stages[:k], sinks[0], workers)
	defer releaseScratch(scr)
	err := src.run(x, workers, func(w int, b *batch) error {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if scr != nil {
			// The worker's previous batch is consumed: its buffers are free.
			scr[w].reclaim()
			b.scratch = scr[w]
		}
		for _, st := range p.stages[:k] {
			nb, err := st.(streamStage).apply(x, b)
			if err != nil {
				return err
			}
			if nb == nil {
				return nil
			}
			b = nb
		}
		x.stats.rowsMatched.Add(int64(b.Rows()))
		if err := sinks[w].consume(x, b); err != nil {
			return err
		}
		if sinks[w].full() {
			return errStopScan
		}
		return nil
	})
	if err != nil && err != errStopScan {
		return nil, err
	}
	return sinks, nil
}

// runStages runs stages over an already materialized batch.
func runStages(x *execCtx, stages []stage, b *batch) (*batch, error) {
	for _, st := range stages {
		if err := x.ctx.Err(); err != nil {
			return nil, err
		}
		switch st := st.(type) {
		case streamStage:
			nb, err := st.apply(x, b)
			if err != nil {
				return nil, err
			}
			if nb == nil {
				nb = emptyBatch(st.out())
			}
			b = nb
		case blockStage:
			s, err := st.newSink(x)
			if err != nil {
				return nil, err
			}
			if err := s.consume(x, b); err != nil {
				return nil, err
			}
			if b, err = st.finish(x, []sink{s}); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

// errStopScan tells a source to stop early; it is not a failure.
var errStopScan = stopScan{}

type stopScan struct{}

func (stopScan) Error() string { return "scan stopped early" }

// collectStage gathers every input batch; it ends a pipeline that has no
// blocking stage of its own.
type collectStage struct{ sch schema }

func (c *collectStage) out() schema { return c.sch }

func (c *collectStage) newSink(*execCtx) (sink, error) { return &collectSink{}, nil }

func (c *collectStage) finish(x *execCtx, sinks []sink) (*batch, error) {
	var parts []*batch
	for _, s := range sinks {
		parts = append(parts, s.(*collectSink).parts...)
	}
	if len(parts) == 0 {
		return emptyBatch(c.sch), nil
	}
	return concat(c.sch, parts)
}

// collectSink keeps the batches it is given, compacted.
type collectSink struct {
	parts []*batch
	rows  int
	dicts map[*string][]string // dictionaries detached (detach.go)
}

func (s *collectSink) consume(x *execCtx, b *batch) error {
	if err := b.compact(); err != nil {
		return err
	}
	if x.detach {
		if s.dicts == nil {
			s.dicts = map[*string][]string{}
		}
		detachStrings(b, s.dicts)
	}
	s.parts = append(s.parts, b)
	s.rows += b.N
	return x.budget.charge(int64(b.N) * int64(len(b.Cols)) * 16)
}

func (s *collectSink) full() bool { return false }
