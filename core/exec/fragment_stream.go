package exec

import (
	"encoding/binary"
	"maps"
	"slices"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// Distributed scans of a stream (issue 16): a file read in place has no
// blocks to hand out, but a SplitStream can be cut into pieces (a file's
// byte ranges, each a run of whole lines) that another worker reads on
// its own. The browser's console runs one engine per Web Worker; the one
// that received the query plans it, scans the first piece itself and
// sends each other piece, with the fragment's plan, to a helper, which
// decodes only its bytes and answers with its partial sinks, as a query
// node does for blocks (fragment_run.go). A piece whose helpers all fail
// is scanned by the receiver, so the answer is always whole.

// ForStreams marks x as the context of a run that reads streams: their
// chunks' strings and dictionaries live for one chunk, so kept strings
// are copied out and nothing is remembered by a dictionary's address.
func (x *Ctx) ForStreams() {
	x.Detach = true
	x.Intern = &Interner{Ids: make(map[string]uint32, 1024), Transient: true}
	x.Preds = &DictMemo{Transient: true}
}

// streamSplit returns pl's stream scan and its SplitStream when the
// query can run in pieces.
func streamSplit(pl *Pipeline) (*ScanSource, SplitStream, bool) {
	src, ok := pl.Src.(*ScanSource)
	if !ok || src.Stream == nil || len(src.Datasets) != 1 {
		return nil, nil, false
	}
	sp, ok := src.Stream.Table.ts.(SplitStream)
	return src, sp, ok
}

// ExecuteStreamPieces runs pl with its stream scan cut into one piece per
// node of req.Distribute: this node scans the first piece and the others
// scan one each. Pipelines that cannot be cut, and streams too small for
// more than one piece, run here as usual.
func ExecuteStreamPieces(x *Ctx, pl *Pipeline, req *Request) (*Batch, error) {
	d := req.Distribute
	src, split, ok := streamSplit(pl)
	k, blk := pl.FirstBlocking()
	codec, okc := blk.(SinkCodec)
	if !ok || !okc || d == nil || len(d.Nodes) < 2 || !CanTravel(x, blk) {
		return pl.Execute(x)
	}
	pieces := split.Pieces(len(d.Nodes))
	if len(pieces) < 2 {
		return pl.Execute(x)
	}
	pf, ok := FragmentPlan(src, pl.Stages[:min(k+1, len(pl.Stages))])
	if !ok {
		return pl.Execute(x)
	}
	others := make([]string, 0, len(d.Nodes))
	for _, n := range d.Nodes {
		if n != d.Self {
			others = append(others, n)
		}
	}
	frag := Fragment{Start: req.Start, End: req.End, Now: x.Fn.Now, MemoryBudget: req.MemoryBudget, NoColumnCache: true}
	rest := pieces[1:]
	sinks, failed, err := fanOut(len(rest), func(i int) ([]sink, error) {
		return runPiece(x, d, codec, frag, *pf, rest[i], others, i)
	}, func() ([]sink, error) { return scanPiece(x, pl, src, split, pieces[0], k, blk) })
	if err != nil {
		return nil, err
	}
	for _, i := range failed { // every helper failed for these: scan them here
		more, err := scanPiece(x, pl, src, split, rest[i], k, blk)
		if err != nil {
			return nil, err
		}
		sinks = append(sinks, more...)
	}
	return pl.finish(x, k, blk, sinks)
}

// scanPiece scans one piece of src's stream here, into fresh sinks of blk.
func scanPiece(x *Ctx, pl *Pipeline, src *ScanSource, split SplitStream, piece string, k int, blk blockStage) ([]sink, error) {
	ts, err := split.Piece(piece)
	if err != nil {
		return nil, err
	}
	part := *src
	part.Stream = &streamScan{Table: src.Stream.Table.pieceTable(ts), Planned: src.Stream.Planned}
	return pl.ScanToSinks(x, &part, k, blk)
}

// runPiece sends the fragment of piece to helpers, starting with the
// i-th (round robin), until one answers or Attempts have failed.
func runPiece(x *Ctx, d *Distribution, codec SinkCodec, frag Fragment, pf plan.Fragment, piece string, helpers []string, i int) ([]sink, error) {
	pf.Scan.Piece = piece
	var err error
	if frag.Plan, err = pf.Encode(); err != nil {
		return nil, err
	}
	order := append(slices.Clone(helpers[i%len(helpers):]), helpers[:i%len(helpers)]...)
	return tryNodes(x, d, codec, &frag, order)
}

// pieceTable is a table reading a piece of t's stream with t's types;
// what it widens widens t.
func (t *StreamTable) pieceTable(ts TableStream) *StreamTable {
	t.mu.Lock()
	defer t.mu.Unlock()
	types := make(map[string]vector.Type, len(t.types))
	for n, ty := range t.types {
		types[n] = ty
	}
	return &StreamTable{Name: t.Name, ts: ts, parent: t, types: types, known: true}
}

// RunStreamFragment runs pf, a fragment of a query over a stream planned
// by another worker, over ts (the piece pf.Scan.Piece names), and returns
// its encoded sinks after the scan's statistics, as RunFragment does for
// blocks. A chunk that widens a type the sender planned with fails the
// fragment; the sender then scans the piece itself and plans again.
func RunStreamFragment(x *Ctx, pf *plan.Fragment, ts TableStream, f *Fragment) ([]byte, error) {
	sch := schemaFromPlan(pf.Scan.Schema)
	types := make(map[string]vector.Type, len(sch))
	for _, c := range sch {
		types[c.Name] = c.Type
	}
	// The table widens its own types as chunks come (check, under its
	// lock); the planned types are read by every chunk without one, so
	// they must be another map.
	t := &StreamTable{Name: pf.Scan.Dataset, ts: ts, types: maps.Clone(types), known: true}
	src := &ScanSource{Sch: sch, Datasets: []string{pf.Scan.Dataset}, Stream: &streamScan{Table: t, Planned: types}}
	pl, err := buildFragmentOver(pf, src, agg.Context{Start: f.Start, End: f.End})
	if err != nil {
		return nil, err
	}
	return scanEncoded(x, pl)
}

// scanEncoded runs a fragment's pipeline to the sinks of its blocking
// stage and encodes them: the scan's statistics, then the sinks, each
// with its length.
func scanEncoded(x *Ctx, pl *Pipeline) ([]byte, error) {
	k, blk := pl.FirstBlocking()
	codec, ok := blk.(SinkCodec)
	if !ok {
		return nil, errNoCodec
	}
	sinks, err := pl.ScanToSinks(x, pl.Src, k, blk)
	if err != nil {
		return nil, err
	}
	if c, ok := blk.(sinkCombiner); ok {
		sinks = c.combineSinks(sinks)
	}
	return encodeSinks(x, codec, sinks)
}

func encodeSinks(x *Ctx, codec SinkCodec, sinks []sink) ([]byte, error) {
	out := encodeFragmentStats(nil, x.Stats)
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
