package exec

import (
	"fmt"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
)

// RunFragment builds the operators of pf, a fragment of a query planned
// on another node, over snap, scans only the fragment's blocks and
// returns the encoded sinks of its first blocking stage after the scan's
// statistics.
func RunFragment(x *Ctx, pf *plan.Fragment, snap *store.Snapshot, f *Fragment) ([]byte, error) {
	if pf.Scan.Piece != "" {
		return nil, fmt.Errorf("fragment: %w scan of a stream's piece over blocks", plan.ErrUnsupported)
	}
	pl, err := BuildFragment(pf, snap, agg.Context{Start: f.Start, End: f.End})
	if err != nil {
		return nil, err
	}
	return scanEncoded(x, pl)
}

// ExecuteDistributed runs pl with its scan cut into fragments sent to the
// nodes of req.Distribute, and, when it names an ingest node, with the
// events only that node holds (fragment_rest.go); pipelines that cannot
// be cut run here as usual.
func ExecuteDistributed(x *Ctx, pl *Pipeline, req *Request) (*Batch, error) {
	d := req.Distribute
	src, ok := pl.Src.(*ScanSource)
	k, blk := pl.FirstBlocking()
	codec, okc := blk.(SinkCodec)
	if !ok || !okc || src.WithSource != "" || len(src.Datasets) != 1 || (len(d.Nodes) < 2 && d.Ingest == "") || !CanTravel(x, blk) {
		if err := NeedsIngest(d); err != nil {
			return nil, err
		}
		return pl.Execute(x)
	}
	pf, ok := FragmentPlan(src, pl.Stages[:min(k+1, len(pl.Stages))])
	if !ok { // a stage with no plan form: the query runs here
		if err := NeedsIngest(d); err != nil {
			return nil, err
		}
		return pl.Execute(x)
	}
	local, remote := cutParts(src, d)
	if len(remote) == 0 && d.Ingest == "" {
		return pl.Execute(x)
	}
	frag := Fragment{Start: req.Start, End: req.End, Now: x.Fn.Now, MemoryBudget: req.MemoryBudget,
		NoColumnCache: req.NoColumnCache}
	var rest <-chan restAnswer
	if d.Ingest != "" {
		rest = startRest(x, d, codec, frag, *pf, src.Parts)
	}
	nodes := make([]string, 0, len(remote))
	for node := range remote {
		nodes = append(nodes, node)
	}
	localSrc := *src
	localSrc.Parts = local
	sinks, failed, err := fanOut(len(nodes), func(i int) ([]sink, error) {
		return runRemote(x, d, codec, frag, *pf, nodes[i], remote[nodes[i]])
	}, func() ([]sink, error) { return pl.ScanToSinks(x, &localSrc, k, blk) })
	if err != nil {
		return nil, err
	}
	var back []scanPart
	for _, i := range failed {
		back = append(back, remote[nodes[i]]...)
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
	if rest != nil {
		if sinks, err = joinRest(x, d, codec, frag, *pf, <-rest, sinks); err != nil {
			return nil, err
		}
	}
	return pl.finish(x, k, blk, sinks)
}

// cutParts splits the scan's blocks between this node and the others,
// or keeps them all here when there are no others or they would scan
// fewer than d.MinRows rows.
func cutParts(src *ScanSource, d *Distribution) (local []scanPart, remote map[string][]scanPart) {
	if len(d.Nodes) < 2 {
		return src.Parts, nil
	}
	local, remote = assignParts(src, d)
	var remoteRows int64
	for _, parts := range remote {
		for _, p := range parts {
			remoteRows += int64(p.Part.Rows())
		}
	}
	if remoteRows < d.MinRows {
		return src.Parts, nil
	}
	return local, remote
}

// fanOut runs remote(i) for every i in [0, n) on goroutines of their own
// while local runs on this one, and returns all the sinks, the i whose
// remote failed (their work is left to the caller) and local's error. A
// remote that panics counts as failed.
func fanOut(n int, remote func(i int) ([]sink, error), local func() ([]sink, error)) ([]sink, []int, error) {
	type answer struct {
		i     int
		sinks []sink
		err   error
	}
	answers := make(chan answer, n)
	for i := range n {
		go func() {
			a := answer{i: i}
			func() {
				defer RecoverInto(&a.err)
				a.sinks, a.err = remote(i)
			}()
			answers <- a
		}()
	}
	sinks, err := local()
	var failed []int
	for range n {
		a := <-answers
		if a.err != nil {
			failed = append(failed, a.i)
			continue
		}
		sinks = append(sinks, a.sinks...)
	}
	return sinks, failed, err
}

// runRemote sends a fragment to node, then to the next nodes in the
// blocks' rendezvous order, and decodes the answer into sinks.
func runRemote(x *Ctx, d *Distribution, codec SinkCodec, frag Fragment, pf plan.Fragment, node string, parts []scanPart) ([]sink, error) {
	pf.Scan.Parts = nil
	for _, p := range parts {
		pf.Scan.Parts = append(pf.Scan.Parts, store.PartKey(p.Part))
	}
	var err error
	if frag.Plan, err = pf.Encode(); err != nil {
		return nil, err
	}
	return tryNodes(x, d, codec, &frag, append([]string{node}, Rendezvous(d.Nodes, pf.Scan.Parts[0])...))
}

// tryNodes sends frag to the nodes of order, skipping this one and
// repeats, until one answers or d.Attempts (default 2) have failed, and
// decodes the answer into sinks.
func tryNodes(x *Ctx, d *Distribution, codec SinkCodec, frag *Fragment, order []string) ([]sink, error) {
	attempts := d.Attempts
	if attempts <= 0 {
		attempts = 2
	}
	tried := map[string]bool{}
	var last error
	for _, n := range order {
		if len(tried) >= attempts {
			break
		}
		if n == d.Self || tried[n] {
			continue
		}
		tried[n] = true
		if err := x.Ctx.Err(); err != nil {
			return nil, err
		}
		body, err := callNode(x.Ctx, d, n, frag)
		if err == nil {
			var sinks []sink
			if sinks, err = DecodeFragment(x, codec, body); err == nil {
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
func assignParts(src *ScanSource, d *Distribution) (local []scanPart, remote map[string][]scanPart) {
	remote = map[string][]scanPart{}
	for _, p := range src.Parts {
		key := store.PartKey(p.Part)
		if key == "" {
			local = append(local, p)
			continue
		}
		if n := Rendezvous(d.Nodes, key)[0]; n != d.Self {
			remote[n] = append(remote[n], p)
		} else {
			local = append(local, p)
		}
	}
	return local, remote
}
