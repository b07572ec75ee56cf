package store

import (
	"encoding/binary"
	"math"
)

// Encoding helpers append to a byte slice, the way encoding/binary's
// Append* functions do, so encoders build one buffer without copies.

func putUvarint(b []byte, x uint64) []byte { return binary.AppendUvarint(b, x) }
func putVarint(b []byte, x int64) []byte   { return binary.AppendVarint(b, x) }
func putU32(b []byte, x uint32) []byte     { return binary.LittleEndian.AppendUint32(b, x) }
func putU64(b []byte, x uint64) []byte     { return binary.LittleEndian.AppendUint64(b, x) }
func putF64(b []byte, x float64) []byte    { return putU64(b, math.Float64bits(x)) }

func putBytes(b []byte, s string) []byte {
	b = putUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// reader decodes untrusted bytes. Every method checks bounds; the first
// failure is kept in err (later calls return zero values) so decoders can
// read a whole structure and check once. Offsets in errors are relative to
// the file: base is the offset of buf[0] in it.
type reader struct {
	buf  []byte
	pos  int
	base int64
	file string
	err  *CorruptionError
	// private says buf is a heap buffer of this reader alone (a body it
	// decompressed), so decoded strings may point into it instead of
	// into a copy: a free-text page is then one allocation, not two.
	private bool
}

func newReader(file string, base int64, b []byte) *reader {
	return &reader{buf: b, base: base, file: file}
}

// fail records the first error at the current position.
func (r *reader) fail(reason string) {
	if r.err == nil {
		r.err = &CorruptionError{File: r.file, Offset: r.base + int64(r.pos), Reason: reason}
	}
	r.pos = len(r.buf)
}

// Err returns the first error as an error interface (nil when none).
func (r *reader) Err() error {
	if r.err == nil {
		return nil
	}
	return r.err
}

func (r *reader) remaining() int { return len(r.buf) - r.pos }

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Uvarint(r.buf[r.pos:])
	if n <= 0 {
		r.fail("bad uvarint")
		return 0
	}
	r.pos += n
	return x
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	x, n := binary.Varint(r.buf[r.pos:])
	if n <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.pos += n
	return x
}

// count reads a uvarint that sizes something of at least minBytes bytes
// per element, rejecting values the remaining input cannot hold, so a
// corrupt count never drives a huge allocation.
func (r *reader) count(minBytes int, what string) int {
	x := r.uvarint()
	if r.err != nil {
		return 0
	}
	if x > uint64(math.MaxInt32) || (minBytes > 0 && x > uint64(r.remaining()/minBytes)) {
		r.fail(what + " count out of range")
		return 0
	}
	return int(x)
}

func (r *reader) u8() byte {
	if r.err != nil || r.pos >= len(r.buf) {
		r.fail("unexpected end of data")
		return 0
	}
	c := r.buf[r.pos]
	r.pos++
	return c
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.remaining() {
		r.fail("length past end of data")
		return nil
	}
	b := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return b
}

func (r *reader) u32() uint32 {
	b := r.take(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *reader) u64() uint64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (r *reader) f64() float64 { return math.Float64frombits(r.u64()) }

// bytes reads a length-prefixed byte string (aliasing the input).
func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(r.remaining()) {
		r.fail("string length past end of data")
		return nil
	}
	return r.take(int(n))
}

// str reads a length-prefixed string as a new Go string (a copy).
func (r *reader) str() string { return string(r.bytes()) }
