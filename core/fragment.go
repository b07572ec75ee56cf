package core

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
)

// Distributed queries (issue 10, item 5). The node that receives a query
// plans it as usual. When the pipeline starts with a scan of one dataset
// whose first blocking stage has sinks that can travel (summarize, count,
// top, take, sort, distinct, or none), the scan is cut into fragments:
// every block in the bucket goes to one query node, chosen by rendezvous
// hashing of the block's key, so a block is always read by the same node
// and its caches stay warm. Each node is sent the fragment's plan
// (core/plan, FORMAT.md) with the receiver's source schema, builds its
// operators from it without parsing (buildFragment), scans its blocks,
// runs the streaming stages and the partial blocking stage in its
// workers, and sends back the encoded sinks; the receiver merges them with its own (blocks only it has, such
// as its unflushed buffer, it always scans itself) and runs the rest of
// the pipeline. A node that fails is replaced by the next in its
// rendezvous order, and after Attempts failures the receiver scans the
// blocks itself, so the answer is always whole.

// Distribution tells Query how to reach the other query nodes.
type Distribution struct {
	// Nodes lists every query node, this one (Self) included.
	Nodes []string
	Self  string
	// Run sends a fragment to a node and returns the bytes of its
	// RunFragment answer.
	Run func(ctx context.Context, node string, f *Fragment) ([]byte, error)
	// Attempts is how many nodes are tried for a fragment before this
	// node scans its blocks itself (default 2).
	Attempts int
	// OnFailure, when set, hears of every failed fragment (metrics, logs).
	OnFailure func(node string, err error)
	// MinRows is the fewest rows in other nodes' blocks for which the
	// scan is cut at all: below it, shipping partial states (a percentile
	// keeps its values exactly up to millions of them) costs more than
	// the scan saves, so the query runs here.
	MinRows int64
}

// Fragment is the part of a query one node runs for another. It travels
// as JSON.
type Fragment struct {
	// Plan is the encoded plan.Fragment (core/plan/FORMAT.md): the scan
	// with its blocks and source schema, and the stages to run. It stays
	// bytes here so the runner reads its version before anything else.
	Plan          json.RawMessage `json:"plan"`
	Start         time.Time       `json:"start"`
	End           time.Time       `json:"end"`
	Now           time.Time       `json:"now"`
	MemoryBudget  int64           `json:"memoryBudget,omitempty"`
	NoColumnCache bool            `json:"noColumnCache,omitempty"`
}

// ErrFragmentParts is returned by RunFragment when this node does not
// see a block the fragment names (its catalog is older): the caller may
// refresh and retry, or send the fragment elsewhere.
var ErrFragmentParts = errors.New("fragment names a block this node does not have")

// restrictToFragment narrows a scan to the blocks keys and makes its
// schema the sender's.
func restrictToFragment(s *scanSource, keys []string, sch schema) error {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	kept := s.parts[:0:0]
	for _, p := range s.parts {
		if k := store.PartKey(p.part); want[k] {
			kept = append(kept, p)
			delete(want, k)
		}
	}
	for k := range want {
		return fmt.Errorf("%w: %s", ErrFragmentParts, k)
	}
	s.parts = kept
	s.sch = sch
	return nil
}

// RunFragment builds f's operators from its plan, scans only f's blocks
// and returns the encoded sinks of the first blocking stage and the
// scan's statistics.
func (e *Engine) RunFragment(ctx context.Context, f *Fragment) ([]byte, error) {
	return e.RunFragmentIn(ctx, nil, f)
}

// RunFragmentIn is RunFragment reading the datasets of cat (nil: the
// engine's catalog), as Request.Catalog does for a query. A plan of a
// version or with a kind this node does not know is refused
// (plan.ErrUnsupported) before anything is read.
func (e *Engine) RunFragmentIn(ctx context.Context, cat Catalog, f *Fragment) (_ []byte, err error) {
	defer recoverInto(&err)
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
	req := &Request{Start: f.Start, End: f.End, Now: f.Now, MemoryBudget: f.MemoryBudget, NoColumnCache: f.NoColumnCache}
	x := e.newExecCtx(ctx, req, time.Now())
	pl, err := buildFragment(pf, snap, agg.Context{Start: f.Start, End: f.End})
	if err != nil {
		return nil, err
	}
	k, blk := pl.firstBlocking()
	codec, ok := blk.(sinkCodec)
	if !ok {
		return nil, errNoCodec
	}
	sinks, err := pl.scanToSinks(x, pl.src, k, blk)
	if err != nil {
		return nil, err
	}
	out := encodeFragmentStats(nil, x.stats)
	out = binary.AppendUvarint(out, uint64(len(sinks)))
	for _, s := range sinks {
		b, err := codec.encodeSink(s)
		if err != nil {
			return nil, err
		}
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

// firstBlocking returns the index of the first blocking stage and the
// stage (a collectStage when there is none).
func (pl *pipeline) firstBlocking() (int, blockStage) {
	for k, st := range pl.stages {
		if b, ok := st.(blockStage); ok {
			return k, b
		}
	}
	return len(pl.stages), &collectStage{sch: pl.out()}
}

// executeDistributed runs pl with its scan cut into fragments; pipelines
// that cannot be cut run here as usual.
func (e *Engine) executeDistributed(x *execCtx, pl *pipeline, req *Request) (*batch, error) {
	d := req.Distribute
	src, ok := pl.src.(*scanSource)
	k, blk := pl.firstBlocking()
	codec, okc := blk.(sinkCodec)
	if !ok || !okc || src.withSource != "" || len(src.datasets) != 1 || len(d.Nodes) < 2 || !canTravel(x, blk) {
		return pl.execute(x)
	}
	pf, ok := fragmentPlan(src, pl.stages[:min(k+1, len(pl.stages))])
	if !ok { // a stage with no plan form: the query runs here
		return pl.execute(x)
	}
	local, remote := assignParts(src, d)
	var remoteRows int64
	for _, parts := range remote {
		for _, p := range parts {
			remoteRows += int64(p.part.Rows())
		}
	}
	if len(remote) == 0 || remoteRows < d.MinRows {
		return pl.execute(x)
	}
	frag := Fragment{Start: req.Start, End: req.End, Now: x.fn.Now, MemoryBudget: req.MemoryBudget,
		NoColumnCache: req.NoColumnCache}
	type answer struct {
		sinks []sink
		back  []scanPart // blocks no node could scan: this node does
		err   error
	}
	answers := make(chan answer, len(remote))
	for node, parts := range remote {
		go func() {
			var sinks []sink
			var err error
			func() {
				defer recoverInto(&err)
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
	localSrc.parts = local
	sinks, err := pl.scanToSinks(x, &localSrc, k, blk)
	var remoteSinks []sink
	var back []scanPart
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
		retry.parts = back
		more, err := pl.scanToSinks(x, &retry, k, blk)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, more...)
	}
	res, err := blk.finish(x, append(sinks, remoteSinks...))
	if err != nil {
		return nil, err
	}
	if k >= len(pl.stages) {
		return res, nil
	}
	return runStages(x, pl.stages[k+1:], res)
}

// canTravel reports whether blk's sinks can be encoded: every
// aggregation of a summarize must have a state codec.
func canTravel(x *execCtx, blk blockStage) bool {
	s, ok := blk.(*summarizeStage)
	if !ok {
		return true
	}
	sk, err := s.newSink(x)
	if err != nil {
		return false
	}
	for _, st := range sk.(*aggSink).states {
		if !agg.CanEncode(st) {
			return false
		}
	}
	return true
}

// runRemote sends a fragment to node, then to the next nodes in the
// blocks' rendezvous order, and decodes the answer into sinks.
func (e *Engine) runRemote(x *execCtx, d *Distribution, codec sinkCodec, frag Fragment, pf plan.Fragment, node string, parts []scanPart) ([]sink, error) {
	pf.Scan.Parts = nil
	for _, p := range parts {
		pf.Scan.Parts = append(pf.Scan.Parts, store.PartKey(p.part))
	}
	var err error
	if frag.Plan, err = pf.Encode(); err != nil {
		return nil, err
	}
	attempts := d.Attempts
	if attempts <= 0 {
		attempts = 2
	}
	order := rendezvous(d.Nodes, pf.Scan.Parts[0])
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
		if err := x.ctx.Err(); err != nil {
			return nil, err
		}
		body, err := d.Run(x.ctx, n, &frag)
		if err == nil {
			var sinks []sink
			if sinks, err = decodeFragment(x, codec, body); err == nil {
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

// decodeFragment reads RunFragment's answer and adds its statistics.
func decodeFragment(x *execCtx, codec sinkCodec, b []byte) ([]sink, error) {
	b, err := decodeFragmentStats(b, x.stats)
	if err != nil {
		return nil, err
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("fragment answer: bad sink count")
	}
	b = b[k:]
	sinks := make([]sink, 0, n)
	for i := uint64(0); i < n; i++ {
		size, k := binary.Uvarint(b)
		if k <= 0 || size > uint64(len(b)-k) {
			return nil, fmt.Errorf("fragment answer: bad sink length")
		}
		s, err := codec.decodeSink(x, b[k:k+int(size)])
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, s)
		b = b[k+int(size):]
	}
	return sinks, nil
}

// assignParts gives each block in the bucket to its rendezvous winner;
// blocks only this node has stay local.
func assignParts(src *scanSource, d *Distribution) (local []scanPart, remote map[string][]scanPart) {
	remote = map[string][]scanPart{}
	for _, p := range src.parts {
		key := store.PartKey(p.part)
		if key == "" {
			local = append(local, p)
			continue
		}
		if n := rendezvous(d.Nodes, key)[0]; n != d.Self {
			remote[n] = append(remote[n], p)
		} else {
			local = append(local, p)
		}
	}
	return local, remote
}

// rendezvous orders nodes by their hash with key, highest first: the
// first is the key's owner, the next take over when it fails, and adding
// or removing a node moves only the keys it wins or held.
func rendezvous(nodes []string, key string) []string {
	type scored struct {
		node  string
		score uint64
	}
	s := make([]scored, len(nodes))
	for i, n := range nodes {
		h := fnv.New64a()
		h.Write([]byte(n))
		h.Write([]byte{0})
		h.Write([]byte(key))
		s[i] = scored{n, mix(h.Sum64())}
	}
	slices.SortFunc(s, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	out := make([]string, len(s))
	for i := range s {
		out[i] = s[i].node
	}
	return out
}

// mix is a 64-bit finalizer: FNV alone spreads similar keys poorly.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	return h ^ h>>33
}

// fragmentStatsVersion leads a fragment's answer, so a sender never reads
// statistics of another layout as its own.
const fragmentStatsVersion = 1

// encodeFragmentStats appends the scan statistics a fragment sends back:
// the version byte, the counters as varints, then whether any block time
// was seen.
func encodeFragmentStats(b []byte, s *scanStats) []byte {
	b = append(b, fragmentStatsVersion)
	for _, v := range []int64{s.blocksExamined.Load(), s.blocksMatched.Load(), s.blocksCached.Load(),
		s.rowsExamined.Load(), s.rowsMatched.Load(), s.minBlockTime.Load(), s.maxBlockTime.Load(),
		s.pagesDecoded.Load()} {
		b = binary.AppendVarint(b, v)
	}
	if s.seen.Load() {
		return append(b, 1)
	}
	return append(b, 0)
}

// decodeFragmentStats adds the statistics encodeFragmentStats wrote to s
// and returns the bytes after them.
func decodeFragmentStats(b []byte, s *scanStats) ([]byte, error) {
	if len(b) == 0 || b[0] != fragmentStatsVersion {
		return nil, fmt.Errorf("fragment answer: unknown statistics version")
	}
	b = b[1:]
	var v [8]int64
	for i := range v {
		x, k := binary.Varint(b)
		if k <= 0 {
			return nil, fmt.Errorf("fragment answer: bad statistics")
		}
		v[i], b = x, b[k:]
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("fragment answer: truncated statistics")
	}
	s.blocksExamined.Add(v[0])
	s.blocksMatched.Add(v[1])
	s.blocksCached.Add(v[2])
	s.rowsExamined.Add(v[3])
	s.rowsMatched.Add(v[4])
	s.pagesDecoded.Add(v[7])
	if b[0] == 1 {
		s.noteBlock(v[5], v[6])
	}
	return b[1:], nil
}
