package core

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
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
	pl, err := exec.BuildFragment(pf, snap, agg.Context{Start: f.Start, End: f.End})
	if err != nil {
		return nil, err
	}
	k, blk := pl.FirstBlocking()
	codec, ok := blk.(exec.SinkCodec)
	if !ok {
		return nil, exec.ErrNoCodec
	}
	sinks, err := pl.ScanToSinks(x, pl.Src, k, blk)
	if err != nil {
		return nil, err
	}
	out := exec.EncodeFragmentStats(nil, x.Stats)
	out = binary.AppendUvarint(out, uint64(len(sinks)))
	for _, s := range sinks {
		b, err := codec.EncodeSink(s)
		if err != nil {
			return nil, err
		}
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

// executeDistributed runs pl with its scan cut into fragments; pipelines
// that cannot be cut run here as usual.
func (e *Engine) executeDistributed(x *exec.Ctx, pl *exec.Pipeline, req *exec.Request) (*exec.Batch, error) {
	d := req.Distribute
	src, ok := pl.Src.(*exec.ScanSource)
	k, blk := pl.FirstBlocking()
	codec, okc := blk.(exec.SinkCodec)
	if !ok || !okc || src.WithSource != "" || len(src.Datasets) != 1 || len(d.Nodes) < 2 || !exec.CanTravel(x, blk) {
		return pl.Execute(x)
	}
	pf, ok := exec.FragmentPlan(src, pl.Stages[:min(k+1, len(pl.Stages))])
	if !ok { // a stage with no plan form: the query runs here
		return pl.Execute(x)
	}
	local, remote := assignParts(src, d)
	var remoteRows int64
	for _, parts := range remote {
		for _, p := range parts {
			remoteRows += int64(p.Part.Rows())
		}
	}
	if len(remote) == 0 || remoteRows < d.MinRows {
		return pl.Execute(x)
	}
	frag := exec.Fragment{Start: req.Start, End: req.End, Now: x.Fn.Now, MemoryBudget: req.MemoryBudget,
		NoColumnCache: req.NoColumnCache}
	type answer struct {
		sinks []exec.Sink
		back  []exec.ScanPart // blocks no node could scan: this node does
		err   error
	}
	answers := make(chan answer, len(remote))
	for node, parts := range remote {
		go func() {
			var sinks []exec.Sink
			var err error
			func() {
				defer exec.RecoverInto(&err)
				sinks, err = e.runRemote(x, d, codec, frag, *pf, node, parts)
			}()
			if err != nil {
				answers <- answer{back: parts, err: err}
				return
			}
			answers <- answer{sinks: sinks}
		}()
	}
	localSrc := *src
	localSrc.Parts = local
	sinks, err := pl.ScanToSinks(x, &localSrc, k, blk)
	var remoteSinks []exec.Sink
	var back []exec.ScanPart
	for range remote {
		a := <-answers
		remoteSinks = append(remoteSinks, a.sinks...)
		back = append(back, a.back...)
	}
	if err != nil {
		return nil, err
	}
	if len(back) > 0 { // every node failed for these: scan them here
		retry := *src
		retry.Parts = back
		more, err := pl.ScanToSinks(x, &retry, k, blk)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, more...)
	}
	res, err := blk.Finish(x, append(sinks, remoteSinks...))
	if err != nil {
		return nil, err
	}
	if k >= len(pl.Stages) {
		return res, nil
	}
	return exec.RunStages(x, pl.Stages[k+1:], res)
}

// runRemote sends a fragment to node, then to the next nodes in the
// blocks' rendezvous order, and decodes the answer into sinks.
func (e *Engine) runRemote(x *exec.Ctx, d *exec.Distribution, codec exec.SinkCodec, frag exec.Fragment, pf plan.Fragment, node string, parts []exec.ScanPart) ([]exec.Sink, error) {
	pf.Scan.Parts = nil
	for _, p := range parts {
		pf.Scan.Parts = append(pf.Scan.Parts, store.PartKey(p.Part))
	}
	var err error
	if frag.Plan, err = pf.Encode(); err != nil {
		return nil, err
	}
	attempts := d.Attempts
	if attempts <= 0 {
		attempts = 2
	}
	order := exec.Rendezvous(d.Nodes, pf.Scan.Parts[0])
	tried := 0
	var last error
	for _, n := range append([]string{node}, order...) {
		if tried >= attempts {
			break
		}
		if n == d.Self || (tried > 0 && n == node) {
			continue
		}
		tried++
		if err := x.Ctx.Err(); err != nil {
			return nil, err
		}
		body, err := d.Run(x.Ctx, n, &frag)
		if err == nil {
			var sinks []exec.Sink
			if sinks, err = exec.DecodeFragment(x, codec, body); err == nil {
				return sinks, nil
			}
		}
		last = fmt.Errorf("node %s: %w", n, err)
		if d.OnFailure != nil {
			d.OnFailure(n, err)
		}
	}
	return nil, last
}

// assignParts gives each block in the bucket to its rendezvous winner;
// blocks only this node has stay local.
func assignParts(src *exec.ScanSource, d *exec.Distribution) (local []exec.ScanPart, remote map[string][]exec.ScanPart) {
	remote = map[string][]exec.ScanPart{}
	for _, p := range src.Parts {
		key := store.PartKey(p.Part)
		if key == "" {
			local = append(local, p)
			continue
		}
		if n := exec.Rendezvous(d.Nodes, key)[0]; n != d.Self {
			remote[n] = append(remote[n], p)
		} else {
			local = append(local, p)
		}
	}
	return local, remote
}
