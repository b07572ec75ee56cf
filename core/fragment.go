package core

import (
	"context"
	"fmt"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
)

// RunFragment builds f's operators from its plan, scans only f's blocks
// and returns the encoded sinks of the first blocking stage and the
// scan's statistics.
func (e *Engine) RunFragment(ctx context.Context, f *exec.Fragment) ([]byte, error) {
	return e.RunFragmentIn(ctx, nil, f)
}

// RunFragmentIn is RunFragment reading the datasets of cat (nil: the
// engine's catalog), as Request.Catalog does for a query. A plan of a
// version or with a kind this node does not know is refused
// (plan.ErrUnsupported) before anything is read.
func (e *Engine) RunFragmentIn(ctx context.Context, cat exec.Catalog, f *exec.Fragment) (_ []byte, err error) {
	defer exec.RecoverInto(&err)
	if len(f.Plan) == 0 || string(f.Plan) == "null" {
		// A node from before plans sends the query text instead.
		return nil, fmt.Errorf("fragment: %w fragment without a plan (query text)", plan.ErrUnsupported)
	}
	pf, err := plan.Decode(f.Plan)
	if err != nil {
		return nil, fmt.Errorf("fragment: %w", err)
	}
	if cat == nil {
		cat = e.cat
	}
	if cat == nil {
		return nil, fmt.Errorf("fragment: no catalog")
	}
	snap, err := cat.Snapshot(pf.Scan.Dataset)
	if err != nil {
		return nil, err
	}
	defer snap.Release()
	req := &exec.Request{Start: f.Start, End: f.End, Now: f.Now, MemoryBudget: f.MemoryBudget, NoColumnCache: f.NoColumnCache}
	x := e.newExecCtx(ctx, req, time.Now())
	return exec.RunFragment(x, pf, snap, f)
}

// RunStreamFragment runs f, a fragment of a query over a stream that
// another engine planned and cut into pieces (exec.SplitStream), over
// the piece its plan names: open returns the stream of that piece of the
// dataset.
func (e *Engine) RunStreamFragment(ctx context.Context, f *exec.Fragment, open func(dataset, piece string) (exec.TableStream, error)) (_ []byte, err error) {
	defer exec.RecoverInto(&err)
	pf, err := plan.Decode(f.Plan)
	if err != nil {
		return nil, fmt.Errorf("fragment: %w", err)
	}
	if pf.Scan.Piece == "" {
		return nil, fmt.Errorf("fragment: %w scan of blocks by a stream runner", plan.ErrUnsupported)
	}
	ts, err := open(pf.Scan.Dataset, pf.Scan.Piece)
	if err != nil {
		return nil, err
	}
	req := &exec.Request{Start: f.Start, End: f.End, Now: f.Now, MemoryBudget: f.MemoryBudget, NoColumnCache: true}
	x := e.newExecCtx(ctx, req, time.Now())
	x.ForStreams()
	return exec.RunStreamFragment(x, pf, ts, f)
}
