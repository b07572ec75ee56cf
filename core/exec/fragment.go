package exec

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
// Rendezvous order, and after Attempts failures the receiver scans the
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
	// OnPartial, when set, hears of every answer that goes without a
	// node's part because nothing else holds it (the ingest node's
	// unflushed events); the answer's status says so too.
	OnPartial func(node string, err error)
	// Timeout bounds each fragment's call to a node (ErrNoAnswer), so a
	// hung node costs a query at most this long; it is cut to what the
	// query has left. Zero leaves only the query's own deadline.
	Timeout time.Duration
	// MinRows is the fewest rows in other nodes' blocks for which the
	// scan is cut at all: below it, shipping partial states (a percentile
	// keeps its values exactly up to millions of them) costs more than
	// the scan saves, so the query runs here.
	MinRows int64
	// Ingest, when set, is the node that holds the events not yet in the
	// bucket: a query node sends it a rest fragment (fragment_rest.go) so
	// an answer includes them, as it would on the ingest node itself.
	Ingest string
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

// ErrNeedsIngest is returned by a query on a node with an ingest node to
// ask (Distribution.Ingest) when it cannot add the ingest node's
// unflushed events to its own answer: the query cannot be cut into
// fragments (a join, a union), or those events have fields the node's
// catalog lacks. The caller sends the query to the ingest node instead.
var ErrNeedsIngest = errors.New("query must run on the ingest node to include its unflushed events")

// ErrFragmentSchema is returned by RunFragment for a rest fragment when
// the rows this node would read have a field or a type the fragment's
// schema lacks: the sender planned without them.
var ErrFragmentSchema = errors.New("fragment's schema lacks fields of this node's unflushed events")

// restrictToFragment narrows a scan to the blocks keys and makes its
// Schema the sender's.
func restrictToFragment(s *ScanSource, keys []string, sch Schema) error {
	named, _, missing := splitByKeys(s.Parts, keys)
	if missing != "" {
		return fmt.Errorf("%w: %s", ErrFragmentParts, missing)
	}
	s.Parts = named
	s.Sch = sch
	return nil
}

// splitByKeys parts the scan's parts into those keys names and the rest,
// and returns a key that names none of them ("" when all do).
func splitByKeys(parts []scanPart, keys []string) (named, rest []scanPart, missing string) {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	for _, p := range parts {
		if k := store.PartKey(p.Part); want[k] {
			named = append(named, p)
			delete(want, k)
			continue
		}
		rest = append(rest, p)
	}
	for k := range want {
		return named, rest, k
	}
	return named, rest, ""
}

// FirstBlocking returns the index of the first blocking stage and the
// Stage (a collectStage when there is none).
func (pl *Pipeline) FirstBlocking() (int, blockStage) {
	for k, st := range pl.Stages {
		if b, ok := st.(blockStage); ok {
			return k, b
		}
	}
	return len(pl.Stages), &collectStage{Sch: pl.Out()}
}

// CanTravel reports whether blk's sinks can be encoded: every
// aggregation of a summarize must have a state codec.
func CanTravel(x *Ctx, blk blockStage) bool {
	s, ok := blk.(*summarizeStage)
	if !ok {
		return true
	}
	sk, err := s.NewSink(x)
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

// DecodeFragment reads RunFragment's answer and adds its statistics.
func DecodeFragment(x *Ctx, codec SinkCodec, b []byte) ([]sink, error) {
	b, err := decodeFragmentStats(b, x.Stats)
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

// Rendezvous orders nodes by their hash with key, highest first: the
// first is the key's owner, the next take over when it fails, and adding
// or removing a node moves only the keys it wins or held.
func Rendezvous(nodes []string, key string) []string {
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
	for _, v := range []int64{s.BlocksExamined.Load(), s.BlocksMatched.Load(), s.BlocksCached.Load(),
		s.RowsExamined.Load(), s.RowsMatched.Load(), s.MinBlockTime.Load(), s.MaxBlockTime.Load(),
		s.PagesDecoded.Load()} {
		b = binary.AppendVarint(b, v)
	}
	if s.Seen.Load() {
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
	s.BlocksExamined.Add(v[0])
	s.BlocksMatched.Add(v[1])
	s.BlocksCached.Add(v[2])
	s.RowsExamined.Add(v[3])
	s.RowsMatched.Add(v[4])
	s.PagesDecoded.Add(v[7])
	if b[0] == 1 {
		s.noteBlock(v[5], v[6])
	}
	return b[1:], nil
}
