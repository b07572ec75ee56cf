package exec

import (
	"context"
	"runtime"
	"time"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/output"
)

// Ctx is the per-query execution state shared by every operator.
type Ctx struct {
	Ctx     context.Context
	Fn      *fn.Context
	Stats   *scanStats
	Budget  *memBudget
	Workers int
	Cache   *cacheView
	Intern  *Interner
	Preds   *DictMemo
	Sorted  *SortedTimes
	// Finals are the merged groups of each summarize of the run (answer.go).
	Finals finalStates
	// runs holds what operators compute once per run (runstate.go).
	runs runState
	// Detach is set when the run reads streams: collected rows copy their
	// strings out of the decoded chunks (detach.go).
	Detach bool
	// Notes are messages for the answer's status that the run itself
	// raised (events it knows it lacks); they make the answer partial.
	Notes []output.Message
}

// Shared is what an engine keeps between the runs it starts: the string
// interner, the memo of string predicates over dictionaries, the sorted
// time columns and the decoded-column cache (nil: none).
type Shared struct {
	Intern *Interner
	Preds  *DictMemo
	Sorted *SortedTimes
	Cache  *ColCache
}

// NewCtx is the context of one run of req, planned or built from a
// fragment's plan; began is the run's clock when req has no Now.
func NewCtx(ctx context.Context, req *Request, began time.Time, sh Shared) *Ctx {
	now := req.Now
	if now.IsZero() {
		now = began
	}
	x := &Ctx{
		Ctx:     ctx,
		Fn:      &fn.Context{Now: now.UTC(), Start: req.Start, End: req.End, Rand: uint64(now.UnixNano())},
		Stats:   &scanStats{},
		Budget:  newQueryBudget(ctx, req.MemoryBudget),
		Workers: req.Workers,
		Intern:  sh.Intern,
		Preds:   sh.Preds,
		Sorted:  sh.Sorted,
	}
	// Functions that can build results far larger than their arguments
	// ask the same budget as the operators.
	x.Fn.Charge = x.Budget.Charge
	if !req.NoColumnCache && sh.Cache != nil {
		x.Cache = sh.Cache.ForQuery()
	}
	if x.Workers <= 0 {
		x.Workers = runtime.GOMAXPROCS(0)
	}
	return x
}

// Source produces the first batches of a pipeline. run may call emit from
// several goroutines at once, each with its own worker number in
// [0, workers); emit's error stops the source.
type Source interface {
	Schema() Schema
	Run(x *Ctx, workers int, emit func(worker int, b *Batch) error) error
}

// Stage is one operator after the source.
type Stage interface {
	Out() Schema
}

// streamStage transforms one batch at a time and keeps no state between
// batches, so it runs inside the parallel scan workers. apply may return
// the same batch (modified) or a new one; a batch with no live rows may be
// returned as nil to drop it.
type streamStage interface {
	Stage
	Apply(x *Ctx, b *Batch) (*Batch, error)
}

// blockStage needs all of its input before it answers (summarize, sort,
// top, distinct, ...). Each scan worker feeds its own sink; finish merges
// the sinks into the single output batch. Sinks are used by one goroutine.
type blockStage interface {
	Stage
	NewSink(x *Ctx) (sink, error)
	Finish(x *Ctx, sinks []sink) (*Batch, error)
}

// sink accumulates the input of a blockStage.
type sink interface {
	consume(x *Ctx, b *Batch) error
	// Full reports that more input cannot change the answer (take N has N
	// rows), so the scan may stop early.
	Full() bool
}

// Pipeline is a planned tabular expression.
type Pipeline struct {
	Src    Source
	Stages []Stage
}

// Out returns the output schema.
func (p *Pipeline) Out() Schema {
	if len(p.Stages) == 0 {
		return p.Src.Schema()
	}
	return p.Stages[len(p.Stages)-1].Out()
}

// Execute runs the pipeline: the source and the streaming stages up to the
// first blocking stage run in parallel workers, each feeding a sink of that
// Stage; the remaining stages run on the merged result.
func (p *Pipeline) Execute(x *Ctx) (*Batch, error) {
	k, blk := p.FirstBlocking()
	sinks, err := p.ScanToSinks(x, p.Src, k, blk)
	if err != nil {
		return nil, err
	}
	return p.finish(x, k, blk, sinks)
}

// finish merges the sinks of blk, the k-th stage, and runs the stages
// after it; distributed runs call it with their nodes' sinks too.
func (p *Pipeline) finish(x *Ctx, k int, blk blockStage, sinks []sink) (*Batch, error) {
	res, err := blk.Finish(x, sinks)
	if err != nil {
		return nil, err
	}
	if k >= len(p.Stages) {
		return res, nil
	}
	return RunStages(x, p.Stages[k+1:], res)
}

// ScanToSinks runs src and the streaming stages before stage k in the
// scan workers, each feeding its own sink of blk, and returns the sinks.
// Distributed queries call it with a scan of part of the blocks.
func (p *Pipeline) ScanToSinks(x *Ctx, src Source, k int, blk blockStage) ([]sink, error) {
	workers := max(x.Workers, 1)
	sinks := make([]sink, workers)
	for i := range sinks {
		s, err := blk.NewSink(x)
		if err != nil {
			return nil, err
		}
		sinks[i] = s
	}
	scr := ScratchFor(p.Stages[:k], sinks[0], workers)
	defer releaseScratch(scr)
	err := src.Run(x, workers, func(w int, b *Batch) error {
		if err := x.Ctx.Err(); err != nil {
			return err
		}
		if scr != nil {
			// The worker's previous batch is consumed: its buffers are free.
			scr[w].reclaim()
			b.scratch = scr[w]
		}
		return feed(x, p.Stages[:k], b, func(b *Batch) error {
			x.Stats.RowsMatched.Add(int64(b.Rows()))
			if err := sinks[w].consume(x, b); err != nil {
				return err
			}
			if sinks[w].Full() {
				return errStopScan
			}
			return nil
		})
	})
	if err != nil && err != errStopScan {
		return nil, err
	}
	return sinks, nil
}

// RunStages runs stages over an already materialized batch.
func RunStages(x *Ctx, stages []Stage, b *Batch) (*Batch, error) {
	for i := 0; i < len(stages); i++ {
		if err := x.Ctx.Err(); err != nil {
			return nil, err
		}
		if _, ok := stages[i].(fanOutStage); ok {
			// Feed its pieces through to the next blocking stage's sink
			// (or a collector), as the scan workers do, rather than build
			// the whole expansion first.
			sub := &Pipeline{Stages: stages[i:]}
			k, blk := sub.FirstBlocking()
			nb, err := runPiecewise(x, stages[i:i+k], blk, b)
			if err != nil {
				return nil, err
			}
			b = nb
			i += k
			continue
		}
		switch st := stages[i].(type) {
		case streamStage:
			nb, err := st.Apply(x, b)
			if err != nil {
				return nil, err
			}
			if nb == nil {
				nb = emptyBatch(st.Out())
			}
			// What it adds is held to the end of the run (memcharge.go).
			if err := x.Budget.Charge(addedBytes(b, nb)); err != nil {
				return nil, err
			}
			b = nb
		case blockStage:
			s, err := st.NewSink(x)
			if err != nil {
				return nil, err
			}
			if err := s.consume(x, b); err != nil {
				return nil, err
			}
			if b, err = st.Finish(x, []sink{s}); err != nil {
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
type collectStage struct{ Sch Schema }

// Out implements Stage.
func (c *collectStage) Out() Schema { return c.Sch }

// NewSink implements blockStage.
func (c *collectStage) NewSink(*Ctx) (sink, error) { return &collectSink{}, nil }

// Finish implements blockStage.
func (c *collectStage) Finish(x *Ctx, sinks []sink) (*Batch, error) {
	var parts []*Batch
	for _, s := range sinks {
		parts = append(parts, s.(*collectSink).parts...)
	}
	if len(parts) == 0 {
		return emptyBatch(c.Sch), nil
	}
	all, err := concat(c.Sch, parts)
	if err != nil || len(parts) == 1 {
		return all, err
	}
	// The parts and their copy are both alive until the copy is done.
	return all, x.Budget.Charge(batchBytes(all))
}

// collectSink keeps the batches it is given, compacted.
type collectSink struct {
	parts []*Batch
	rows  int
	dicts map[*string][]string // dictionaries detached (detach.go)
}

func (s *collectSink) consume(x *Ctx, b *Batch) error {
	if err := b.LoadCompact(); err != nil {
		return err
	}
	if x.Detach {
		if s.dicts == nil {
			s.dicts = map[*string][]string{}
		}
		detachStrings(b, s.dicts)
	}
	s.parts = append(s.parts, b)
	s.rows += b.N
	return x.Budget.Charge(batchBytes(b))
}

// Full implements sink.
func (s *collectSink) Full() bool { return false }
