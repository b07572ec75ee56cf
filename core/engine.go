package core

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
)

// Engine answers APL queries over a Catalog. It is safe for concurrent use.
type Engine struct {
	cat     exec.Catalog
	cache   *exec.ColCache
	results *exec.ResultCache
	intern  atomic.Pointer[exec.Interner]
	preds   exec.DictMemo
	sorted  exec.SortedTimes
}

// Interner returns the engine's shared string interner, starting a fresh
// one when the current one has grown past its bounds.
func (e *Engine) interner() *exec.Interner {
	in := e.intern.Load()
	if in == nil || in.Full() {
		fresh := exec.NewInterner()
		if e.intern.CompareAndSwap(in, fresh) {
			return fresh
		}
		return e.intern.Load()
	}
	return in
}

// Default bounds of an engine's caches.
const (
	DefaultColumnCacheBytes = 1 << 30
	DefaultResultCacheBytes = 256 << 20
)

// EngineOptions bound the memory an engine keeps between queries.
type EngineOptions struct {
	// ColumnCacheBytes bounds the decoded columns kept for later queries
	// (0: DefaultColumnCacheBytes; negative: none).
	ColumnCacheBytes int64
	// ResultCacheBytes bounds the answers kept for repeated queries over
	// unchanged blocks (0: DefaultResultCacheBytes; negative: none).
	ResultCacheBytes int64
}

// NewEngine returns an engine reading datasets from cat (nil for queries
// that read no dataset), with default cache bounds.
func NewEngine(cat exec.Catalog) *Engine { return NewEngineWith(cat, EngineOptions{}) }

// NewEngineWith returns an engine whose caches hold at most what o says.
func NewEngineWith(cat exec.Catalog, o EngineOptions) *Engine {
	cols, results := o.ColumnCacheBytes, o.ResultCacheBytes
	if cols == 0 {
		cols = DefaultColumnCacheBytes
	}
	if results == 0 {
		results = DefaultResultCacheBytes
	}
	return &Engine{cat: cat, cache: exec.NewColCache(max(cols, 0)), results: exec.NewResultCache(max(results, 0))}
}

// ColumnCache is the engine's decoded-column cache, for a server's memory
// governor to account and shrink (nil when the engine keeps none).
func (e *Engine) ColumnCache() *exec.ColCache {
	if e.cache.Limit() == 0 {
		return nil
	}
	return e.cache
}

// Query parses, plans and runs req. The returned Output is shared with
// the result cache: callers must not modify it (output.WithMessage copies).
func (e *Engine) Query(ctx context.Context, req *exec.Request) (o *output.Output, err error) {
	defer exec.RecoverInto(&err)
	if len(req.Streams) == 0 {
		return e.query(ctx, req, nil)
	}
	streams := exec.NewStreamTables(req.Streams)
	defer streams.Close()
	for tries := 0; ; tries++ {
		o, err := e.query(ctx, req, streams)
		if !errors.Is(err, exec.ErrStreamWidened) {
			return o, err
		}
		if tries == maxReplans {
			return nil, fmt.Errorf("%w after %d restarts", exec.ErrStreamSchema, tries)
		}
	}
}

// query plans and runs req once over the given streams.
func (e *Engine) query(ctx context.Context, req *exec.Request, streams exec.StreamTables) (*output.Output, error) {
	began := time.Now()
	p, pl, x, err := e.prepare(ctx, req, streams, began)
	if err != nil {
		return nil, err
	}
	// Outputs hold decoded copies, never mapped memory, so the blocks can
	// be unpinned as soon as execution ends.
	defer p.release()
	key := ""
	// An answer that includes the ingest node's unflushed events changes
	// with them, while the blocks the key stands for stay the same.
	fresh := req.Distribute != nil && req.Distribute.Ingest != ""
	if !req.DisableCache && req.Workers == 0 && !fresh && len(streams) == 0 {
		key = p.cacheKey()
	}
	if key != "" {
		if hit := e.results.Get(key); hit != nil {
			cp := *hit
			cp.Elapsed = time.Since(began)
			cp.CacheStatus = output.CacheHit
			if req.End.IsZero() {
				cp.End = x.Fn.Now // an open range ends at this query's now
			}
			return &cp, nil
		}
	}
	var b *exec.Batch
	// Variables travel folded into the plan's constants.
	switch {
	case req.Distribute != nil && len(p.snaps) == 1:
		b, err = exec.ExecuteDistributed(x, pl, req)
	case req.Distribute != nil && len(streams) > 0:
		b, err = exec.ExecuteStreamPieces(x, pl, req)
	default:
		if err = exec.NeedsIngest(req.Distribute); err == nil {
			b, err = pl.Execute(x)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := b.LoadCompact(); err != nil {
		return nil, err
	}
	cut := p.trimRows(b)
	o := p.answer(x, pl, b)
	if cut {
		p.noteCut(o)
	}
	o.Elapsed = time.Since(began)
	// A partial answer is not kept: what left rows out (a node that did
	// not answer) may be gone by the next run.
	if key != "" && !o.Partial {
		e.results.Put(key, o)
	}
	return o, nil
}

// prepare parses and plans req, and returns the context of its run. The
// caller must release the planner. streams are the request's
// TableStreams (nil when it has none).
func (e *Engine) prepare(ctx context.Context, req *exec.Request, streams exec.StreamTables, began time.Time) (*planner, *exec.Pipeline, *exec.Ctx, error) {
	p, pp, x, err := e.planReq(ctx, req, streams, began)
	if err != nil {
		return nil, nil, nil, err
	}
	pl, err := exec.BuildQueryPipeline(pp, p.buildEnv())
	if err != nil {
		p.release()
		return nil, nil, nil, fmt.Errorf("building the plan: %w", err)
	}
	return p, pl, x, nil
}

// planReq parses and plans req to plan nodes, and returns the context of
// its run. The caller must release the planner. The planner resolves
// names and types, folds constants and rewrites stages (pushDown,
// sortThenTake, finalize, sortTimeSeries) on plan nodes only.
func (e *Engine) planReq(ctx context.Context, req *exec.Request, streams exec.StreamTables, began time.Time) (*planner, *plan.Pipeline, *exec.Ctx, error) {
	q, err := parser.Parse(req.APL)
	if err != nil {
		return nil, nil, nil, syntaxError(err)
	}
	x := e.newExecCtx(ctx, req, began)
	if len(streams) > 0 {
		x.ForStreams()
	}
	p := &planner{e: e, req: req, fc: x.Fn, lets: map[string]*typed{}, tables: map[string]*parser.Pipeline{}, streams: streams}
	p.bindVariables()
	pl, err := p.planQuery(q)
	if err != nil {
		p.release()
		return nil, nil, nil, err
	}
	pl = sortTimeSeries(p.finalize(pl, true))
	pl.V = plan.Version
	p.plan = &pl.Pipeline
	return p, &pl.Pipeline, x, nil
}

// newExecCtx is the context of one run of req, planned or built from a
// fragment's plan, sharing the engine's caches.
func (e *Engine) newExecCtx(ctx context.Context, req *exec.Request, began time.Time) *exec.Ctx {
	return exec.NewCtx(ctx, req, began, exec.Shared{Intern: e.interner(), Preds: &e.preds, Sorted: &e.sorted, Cache: e.cache})
}

// syntaxError converts the parser's errors to a QueryError (the first one
// positions it; all are in the message).
func syntaxError(err error) error {
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return &exec.QueryError{Line: list[0].Pos.Line, Col: list[0].Pos.Col, Msg: list[0].Msg, Kind: "syntax"}
	}
	var one *parser.Error
	if errors.As(err, &one) {
		return &exec.QueryError{Line: one.Pos.Line, Col: one.Pos.Col, Msg: one.Msg, Kind: "syntax"}
	}
	return &exec.QueryError{Line: 1, Col: 1, Msg: err.Error(), Kind: "syntax"}
}

// bindVariables makes the request's variables available as constants.
func (p *planner) bindVariables() {
	for name, v := range p.req.Variables {
		t, val := inferValue(v)
		p.lets[name] = constExpr(t, val, srcpos.Span{})
	}
}
