package exec

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// A sink that can travel: a query node encodes the sinks its scan workers
// filled, and the node that received the query decodes them and hands
// them to the same blockStage's finish with its own. Only the first
// blocking stage of a pipeline runs on other nodes, so these are the only
// states that ever travel (issue 10, "fragments").

// SinkCodec is implemented by the blockStages whose sinks can travel.
type SinkCodec interface {
	blockStage
	EncodeSink(s sink) ([]byte, error)
	decodeSink(x *Ctx, b []byte) (sink, error)
}

// sinkCombiner is a SinkCodec whose sinks merge into one before they
// travel. A query node then sends one partial state rather than one per
// scan worker: fewer bytes to encode, send and decode, and a state that
// passes its limits on merging (an exact percentile's values turning into
// a sketch past 1Mi of them) does so here, as it would have on the
// receiving node, instead of travelling as every raw value.
type sinkCombiner interface {
	combineSinks(sinks []sink) []sink
}

// errNoCodec marks a pipeline that cannot be split; the query then runs
// on the node that received it.
var errNoCodec = errors.New("this operator cannot be split across nodes")

func encodeBatches(parts []*Batch) ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(parts)))
	for _, p := range parts {
		if err := p.LoadCompact(); err != nil {
			return nil, err
		}
		var err error
		if b, err = store.EncodeColumns(b, p.Cols, p.N); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func decodeBatches(b []byte, sch Schema) ([]*Batch, error) {
	k, n := binary.Uvarint(b)
	if n <= 0 || k > uint64(len(b)) {
		return nil, fmt.Errorf("partial result: bad batch count")
	}
	b = b[n:]
	parts := make([]*Batch, 0, k)
	for i := uint64(0); i < k; i++ {
		cols, rows, rest, err := store.DecodeColumns(b)
		if err != nil {
			return nil, err
		}
		if err := checkColumns(cols, sch); err != nil {
			return nil, err
		}
		parts = append(parts, NewBatch(cols, rows))
		b = rest
	}
	return parts, nil
}

// checkColumns verifies decoded columns against the schema the receiver
// planned, so a node that planned differently is an error, not garbage.
func checkColumns(cols []*vector.Vector, sch Schema) error {
	if len(cols) != len(sch) {
		return fmt.Errorf("partial result has %d columns, the plan %d", len(cols), len(sch))
	}
	for i, c := range cols {
		if c.Type != sch[i].Type {
			return fmt.Errorf("partial result column %q is %v, the plan says %v", sch[i].Name, c.Type, sch[i].Type)
		}
	}
	return nil
}

// EncodeSink implements SinkCodec.
func (c *countStage) EncodeSink(s sink) ([]byte, error) {
	return binary.AppendVarint(nil, s.(*countSink).n), nil
}

func (c *countStage) decodeSink(_ *Ctx, b []byte) (sink, error) {
	n, k := binary.Varint(b)
	if k <= 0 || n < 0 {
		return nil, fmt.Errorf("partial count: bad encoding")
	}
	return &countSink{n: n}, nil
}

// EncodeSink implements SinkCodec.
func (s *takeStage) EncodeSink(sk sink) ([]byte, error) { return encodeBatches(sk.(*takeSink).parts) }

func (s *takeStage) decodeSink(_ *Ctx, b []byte) (sink, error) {
	parts, err := decodeBatches(b, s.In)
	if err != nil {
		return nil, err
	}
	t := &takeSink{st: s, parts: parts}
	for _, p := range parts {
		t.rows += int64(p.N)
	}
	return t, nil
}

// A top sink travels as its winners, gathered into one dense batch; the
// receiver recomputes their sort keys.
func (s *topStage) EncodeSink(sk sink) ([]byte, error) {
	b, err := s.Finish(nil, []sink{sk})
	if err != nil {
		return nil, err
	}
	return encodeBatches([]*Batch{b})
}

func (s *topStage) decodeSink(x *Ctx, b []byte) (sink, error) {
	parts, err := decodeBatches(b, s.In)
	if err != nil {
		return nil, err
	}
	t := &topSink{st: s}
	for _, p := range parts {
		kv := make([]*vector.Vector, len(s.Keys))
		for i, k := range s.Keys {
			v, err := k.E.Run(x, p)
			if err != nil {
				return nil, err
			}
			kv[i] = v
		}
		for r := 0; r < p.N; r++ {
			t.best = append(t.best, topRow{b: p, keys: kv, row: int32(r)})
		}
	}
	return t, nil
}

// EncodeSink implements SinkCodec.
func (c *collectStage) EncodeSink(sk sink) ([]byte, error) {
	return encodeBatches(sk.(*collectSink).parts)
}

func (c *collectStage) decodeSink(_ *Ctx, b []byte) (sink, error) {
	parts, err := decodeBatches(b, c.Sch)
	if err != nil {
		return nil, err
	}
	s := &collectSink{parts: parts}
	for _, p := range parts {
		s.rows += p.N
	}
	return s, nil
}

// EncodeSink implements SinkCodec.
func (s *sortStage) EncodeSink(sk sink) ([]byte, error) {
	return encodeBatches(sk.(*collectSink).parts)
}

func (s *sortStage) decodeSink(_ *Ctx, b []byte) (sink, error) {
	parts, err := decodeBatches(b, s.Out())
	if err != nil {
		return nil, err
	}
	c := &collectSink{parts: parts}
	for _, p := range parts {
		c.rows += p.N
	}
	return c, nil
}

// EncodeSink implements SinkCodec.
func (s *distinctStage) EncodeSink(sk sink) ([]byte, error) {
	g := sk.(*distinctSink).g
	return store.EncodeColumns(nil, g.keys, g.N)
}

func (s *distinctStage) decodeSink(_ *Ctx, b []byte) (sink, error) {
	cols, n, _, err := store.DecodeColumns(b)
	if err != nil {
		return nil, err
	}
	if err := checkColumns(cols, s.Sch); err != nil {
		return nil, err
	}
	sk, _ := s.NewSink(nil)
	d := sk.(*distinctSink)
	d.g.keys, d.g.N = cols, n // read only by mergeInto, which goes by keys
	return d, nil
}

// EncodeSink writes the group keys, then each aggregation's states.
func (s *summarizeStage) EncodeSink(sk sink) ([]byte, error) {
	a := sk.(*aggSink)
	b, err := store.EncodeColumns(nil, a.Groups.keyCols(), a.Groups.N)
	if err != nil {
		return nil, err
	}
	for i, st := range a.states {
		c, ok := st.(agg.Codec)
		if !ok {
			return nil, fmt.Errorf("%s: %w", s.Aggs[i].Fname, errNoCodec)
		}
		st.Grow(a.Groups.N)
		body, err := c.AppendState(nil, a.Groups.N)
		if err != nil {
			return nil, err
		}
		b = binary.AppendUvarint(b, uint64(len(body)))
		b = append(b, body...)
	}
	return b, nil
}

// combineSinks merges the workers' group tables and states into the
// first; Finish starts with it.
func (s *summarizeStage) combineSinks(sinks []sink) []sink {
	base, _ := mergeSinks(nil, sinks) // without a run there is no error
	return []sink{base}
}

func (s *summarizeStage) decodeSink(x *Ctx, b []byte) (sink, error) {
	cols, n, rest, err := store.DecodeColumns(b)
	if err != nil {
		return nil, err
	}
	sk, err := s.NewSink(x)
	if err != nil {
		return nil, err
	}
	a := sk.(*aggSink)
	if len(cols) != len(a.Groups.types) {
		return nil, fmt.Errorf("partial aggregate has %d keys, the plan %d", len(cols), len(a.Groups.types))
	}
	for i, c := range cols {
		if c.Type != a.Groups.types[i] {
			return nil, fmt.Errorf("partial aggregate key %d is %v, the plan says %v", i, c.Type, a.Groups.types[i])
		}
	}
	// A decoded sink is only ever merged into another (the local sinks
	// come first), and merging reads the keys, not the hash tables.
	a.Groups.keys, a.Groups.N, a.Groups.intern = cols, n, nil
	for i, st := range a.states {
		c, ok := st.(agg.Codec)
		if !ok {
			return nil, fmt.Errorf("%s: %w", s.Aggs[i].Fname, errNoCodec)
		}
		size, k := binary.Uvarint(rest)
		if k <= 0 || size > uint64(len(rest)-k) {
			return nil, fmt.Errorf("partial aggregate %s: bad length", s.Aggs[i].Fname)
		}
		got, err := c.DecodeState(rest[k : k+int(size)])
		if err != nil {
			return nil, fmt.Errorf("partial aggregate %s: %w", s.Aggs[i].Fname, err)
		}
		if got != n {
			return nil, fmt.Errorf("partial aggregate %s holds %d groups, the keys %d", s.Aggs[i].Fname, got, n)
		}
		rest = rest[k+int(size):]
	}
	return a, nil
}
