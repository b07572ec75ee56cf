package agg

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/aplite/aplite/vector"
)

// Codec turns a State into bytes and back, so partial aggregates a query
// node computes over its share of the blocks can be merged on the node
// that received the query (core/fragment.go). States without it keep
// their query on one node.
type Codec interface {
	// AppendState appends the state of groups [0, n) to b; the state has
	// been grown to at least n groups.
	AppendState(b []byte, n int) ([]byte, error)
	// DecodeState replaces the content of a fresh state (made by the same
	// Spec.New with the same arguments) with what AppendState wrote and
	// returns the number of groups. Damaged input is an error.
	DecodeState(b []byte) (int, error)
}

// errState is the error of every damaged encoding.
var errState = errors.New("damaged aggregation state")

// maxStateGroups bounds the groups a decoded state may claim, so damaged
// input cannot make it allocate without limit.
const maxStateGroups = 1 << 26

// rd reads what the append helpers below write; the first error sticks.
type rd struct {
	b   []byte
	err error
}

func (r *rd) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errState
		return 0
	}
	r.b = r.b[n:]
	return x
}

func (r *rd) varint() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errState
		return 0
	}
	r.b = r.b[n:]
	return x
}

// count reads a length that must fit the remaining bytes at min each.
func (r *rd) count(minBytes int) int {
	n := r.uvarint()
	if n > maxStateGroups || minBytes > 0 && n > uint64(len(r.b)/minBytes) {
		r.err = errState
		return 0
	}
	return int(n)
}

func (r *rd) f64() float64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = errState
		return 0
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return x
}

func (r *rd) str() string {
	n := r.count(1)
	if r.err != nil || n > len(r.b) {
		r.err = errState
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *rd) done(n int) (int, error) {
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: %d trailing bytes", errState, len(r.b))
	}
	return n, r.err
}

func putF64(b []byte, x float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
}

func putStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func putInts(b []byte, xs []int64) []byte {
	for _, x := range xs {
		b = binary.AppendVarint(b, x)
	}
	return b
}

func readInts(r *rd, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = r.varint()
	}
	return out
}

func putFloats(b []byte, xs []float64) []byte {
	for _, x := range xs {
		b = putF64(b, x)
	}
	return b
}

func readFloats(r *rd, n int) []float64 {
	if r.err == nil && len(r.b) < 8*n {
		r.err = errState
	}
	if r.err != nil {
		return make([]float64, n)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = r.f64()
	}
	return out
}

func putBools(b []byte, xs []bool) []byte {
	for i := 0; i < len(xs); i += 8 {
		var c byte
		for j := 0; j < 8 && i+j < len(xs); j++ {
			if xs[i+j] {
				c |= 1 << j
			}
		}
		b = append(b, c)
	}
	return b
}

func readBools(r *rd, n int) []bool {
	k := (n + 7) / 8
	if r.err == nil && len(r.b) < k {
		r.err = errState
	}
	out := make([]bool, n)
	if r.err != nil {
		return out
	}
	for i := range out {
		out[i] = r.b[i/8]&(1<<(i%8)) != 0
	}
	r.b = r.b[k:]
	return out
}

// AppendState implements Codec.
func (s *countState) AppendState(b []byte, n int) ([]byte, error) {
	return putInts(binary.AppendUvarint(b, uint64(n)), s.counts[:n]), nil
}

// DecodeState implements Codec.
func (s *countState) DecodeState(b []byte) (int, error) {
	r := &rd{b: b}
	n := r.count(1)
	s.counts = readInts(r, n)
	return r.done(n)
}

// AppendState implements Codec.
func (s *sumState) AppendState(b []byte, n int) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(n))
	if s.out == vector.Float {
		b = putFloats(b, s.floats[:n])
	} else {
		b = putInts(b, s.ints[:n])
	}
	return putBools(b, s.has[:n]), nil
}

// DecodeState implements Codec.
func (s *sumState) DecodeState(b []byte) (int, error) {
	r := &rd{b: b}
	n := r.count(1)
	if s.out == vector.Float {
		s.floats = readFloats(r, n)
	} else {
		s.ints = readInts(r, n)
	}
	s.has = readBools(r, n)
	return r.done(n)
}

// AppendState implements Codec.
func (s *avgState) AppendState(b []byte, n int) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(n))
	b = putFloats(b, s.sums[:n])
	b = putInts(b, s.hi[:n])
	for _, x := range s.lo[:n] {
		b = binary.AppendUvarint(b, x)
	}
	return putInts(b, s.counts[:n]), nil
}

// DecodeState implements Codec.
func (s *avgState) DecodeState(b []byte) (int, error) {
	r := &rd{b: b}
	n := r.count(4)
	s.sums = readFloats(r, n)
	s.hi = readInts(r, n)
	s.lo = make([]uint64, n)
	for i := range s.lo {
		s.lo[i] = r.uvarint()
	}
	s.counts = readInts(r, n)
	return r.done(n)
}

// AppendState implements Codec.
func (s *varState) AppendState(b []byte, n int) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(n))
	b = putInts(b, s.n[:n])
	b = putFloats(b, s.mean[:n])
	return putFloats(b, s.m2[:n]), nil
}

// DecodeState implements Codec.
func (s *varState) DecodeState(b []byte) (int, error) {
	r := &rd{b: b}
	n := r.count(17)
	s.n = readInts(r, n)
	s.mean = readFloats(r, n)
	s.m2 = readFloats(r, n)
	return r.done(n)
}

// AppendState implements Codec.
func (s *extremeState) AppendState(b []byte, n int) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(n))
	switch {
	case s.t == vector.Float:
		b = putFloats(b, s.floats[:n])
		b = putBools(b, s.nan[:n])
	case s.t == vector.String:
		for _, x := range s.strs[:n] {
			b = putStr(b, x)
		}
	case s.t.IsInt64Backed() || s.t == vector.Bool:
		b = putInts(b, s.ints[:n])
	case s.t == vector.Dynamic:
		b = appendDynBests(b, s.dyns[:n])
	default:
		return nil, fmt.Errorf("min/max of %s: no codec", s.t)
	}
	return putBools(b, s.has[:n]), nil
}

// DecodeState implements Codec.
func (s *extremeState) DecodeState(b []byte) (int, error) {
	r := &rd{b: b}
	n := r.count(1)
	switch {
	case s.t == vector.Float:
		s.floats = readFloats(r, n)
		s.nan = readBools(r, n)
	case s.t == vector.String:
		s.strs = make([]string, n)
		for i := range s.strs {
			s.strs[i] = r.str()
		}
	case s.t.IsInt64Backed() || s.t == vector.Bool:
		s.ints = readInts(r, n)
	case s.t == vector.Dynamic:
		var err error
		if s.dyns, err = readDynBests(r, n); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("min/max of %s: no codec", s.t)
	}
	s.has = readBools(r, n)
	return r.done(n)
}

// AppendState implements Codec: the inner state travels.
func (s *ifState) AppendState(b []byte, n int) ([]byte, error) {
	c, ok := s.inner.(Codec)
	if !ok {
		return nil, fmt.Errorf("%T: no codec", s.inner)
	}
	return c.AppendState(b, n)
}

// DecodeState implements Codec.
func (s *ifState) DecodeState(b []byte) (int, error) {
	c, ok := s.inner.(Codec)
	if !ok {
		return 0, fmt.Errorf("%T: no codec", s.inner)
	}
	return c.DecodeState(b)
}

// AppendState implements Codec: exact sets as their hashes, sketches as
// their registers.
func (s *dcountState) AppendState(b []byte, n int) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(n))
	for i := range s.sets[:n] {
		d := &s.sets[i]
		if d.regs != nil {
			b = append(b, 1)
			b = append(b, d.regs...)
			continue
		}
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(d.n))
		for _, h := range d.table {
			if h != 0 {
				b = binary.LittleEndian.AppendUint64(b, h)
			}
		}
	}
	return b, nil
}

// DecodeState implements Codec.
func (s *dcountState) DecodeState(b []byte) (int, error) {
	r := &rd{b: b}
	n := r.count(1)
	s.sets = make([]distinctSet, n)
	for i := 0; i < n && r.err == nil; i++ {
		if len(r.b) == 0 {
			r.err = errState
			break
		}
		kind := r.b[0]
		r.b = r.b[1:]
		switch kind {
		case 1:
			m := 1 << s.p
			if len(r.b) < m {
				r.err = errState
				break
			}
			s.sets[i].regs = append([]uint8(nil), r.b[:m]...)
			r.b = r.b[m:]
		case 0:
			k := r.count(8)
			if k > exactDistinct {
				r.err = errState
				break
			}
			for j := 0; j < k; j++ {
				s.sets[i].add(binary.LittleEndian.Uint64(r.b[8*j:]), s.p)
			}
			r.b = r.b[8*k:]
		default:
			r.err = errState
		}
	}
	return r.done(n)
}

// AppendState implements Codec: each group's exact values, or its sketch.
func (s *pctState[T]) AppendState(b []byte, n int) ([]byte, error) {
	return s.quantState.appendState(b, n), nil
}

// DecodeState implements Codec.
func (s *pctState[T]) DecodeState(b []byte) (int, error) { return s.quantState.decodeState(b) }

func (q *quantState[T]) appendState(b []byte, n int) []byte {
	b = binary.AppendUvarint(b, uint64(n))
	for i := range q.groups[:n] {
		g := &q.groups[i]
		if g.sk != nil {
			b = append(b, 1)
			b = g.sk.appendTo(b)
			continue
		}
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(g.n))
		g.each(func(x T) {
			if q.t == vector.Float {
				b = putF64(b, float64(x))
			} else {
				b = binary.AppendVarint(b, int64(x))
			}
		})
	}
	return b
}

func (q *quantState[T]) decodeState(b []byte) (int, error) {
	r := &rd{b: b}
	n := r.count(1)
	q.groups = make([]qgroup[T], n)
	for i := 0; i < n && r.err == nil; i++ {
		if len(r.b) == 0 {
			r.err = errState
			break
		}
		kind := r.b[0]
		r.b = r.b[1:]
		g := &q.groups[i]
		switch kind {
		case 1:
			g.sk = readSketch(r)
		case 0:
			k := r.count(1)
			g.vals = make([]T, 0, k)
			for j := 0; j < k && r.err == nil; j++ {
				if q.t == vector.Float {
					g.vals = append(g.vals, T(r.f64()))
				} else {
					g.vals = append(g.vals, T(r.varint()))
				}
			}
			g.n = len(g.vals)
			q.exact += g.n
		default:
			r.err = errState
		}
	}
	return r.done(n)
}

func (s *ddsketch) appendTo(b []byte) []byte {
	for _, bins := range []*ddBins{&s.pos, &s.neg} {
		b = binary.AppendVarint(b, int64(bins.off))
		b = binary.AppendUvarint(b, uint64(len(bins.counts)))
		for _, c := range bins.counts {
			b = binary.AppendUvarint(b, c)
		}
	}
	for _, c := range []uint64{s.zero, s.posInf, s.negInf, s.n} {
		b = binary.AppendUvarint(b, c)
	}
	return putF64(putF64(b, s.min), s.max)
}

func readSketch(r *rd) *ddsketch {
	s := &ddsketch{}
	for _, bins := range []*ddBins{&s.pos, &s.neg} {
		off := r.varint()
		if off < math.MinInt32 || off > math.MaxInt32 {
			r.err = errState
			return s
		}
		bins.off = int32(off)
		k := r.count(1)
		bins.counts = make([]uint64, k)
		for i := range bins.counts {
			bins.counts[i] = r.uvarint()
		}
	}
	s.zero, s.posInf, s.negInf, s.n = r.uvarint(), r.uvarint(), r.uvarint(), r.uvarint()
	s.min, s.max = r.f64(), r.f64()
	return s
}

// CanEncode reports whether a state can travel between nodes: it has a
// codec, and so does what it wraps.
func CanEncode(s State) bool {
	switch x := s.(type) {
	case *ifState:
		return CanEncode(x.inner)
	case *extremeState:
		return x.t == vector.Float || x.t == vector.String || x.t.IsInt64Backed() || x.t == vector.Bool || x.t == vector.Dynamic
	}
	_, ok := s.(Codec)
	return ok
}
