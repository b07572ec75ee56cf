package ingest

import (
	"encoding/binary"
	"unsafe"
)

// arena hands out strings backed by large shared chunks, so a request's
// string values cost one allocation per chunk instead of one per value.
// The chunks are never written again once a string points into them, and
// a string keeps its chunk alive; all strings of a request share the
// lifetime of the rows batch they end up in. A caller that keeps a few of
// them much longer than the batch should clone them (strings.Clone).
type arena struct {
	buf   []byte
	chunk int
}

// maxArenaChunk bounds one chunk, so a stray long-lived string pins at most
// this much memory.
const maxArenaChunk = 1 << 20

// reset prepares the arena for a request of about n bytes, dropping (not
// reusing) the previous chunk, which strings of the last request point into.
func (a *arena) reset(n int) {
	a.buf = nil
	a.chunk = min(max(n/2, 4096), maxArenaChunk)
}

// str returns a string with the bytes of b.
func (a *arena) str(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if cap(a.buf)-len(a.buf) < n {
		if n > a.chunk/8 {
			return string(b) // a big value gets its own allocation
		}
		a.buf = make([]byte, 0, a.chunk)
		if a.chunk < maxArenaChunk {
			a.chunk *= 2
		}
	}
	i := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[i], n)
}

// strCache remembers recent string values of one field, so a repeated
// value (an HTTP method, a country, a user agent) shares one string
// instead of copying its bytes again: less memory for the buffered rows.
// It is direct-mapped by a cheap hash and switches itself off for fields
// whose values rarely repeat (ids, URIs), where it would only cost time.
type strCache struct {
	vals          [16]string
	lookups, hits uint32
	off           bool
}

// Values longer than this are copied without consulting the cache.
const maxCachedLen = 256

// get returns a string equal to b, from the cache or the arena.
func (c *strCache) get(b []byte, a *arena) string {
	if c.off || len(b) > maxCachedLen {
		return a.str(b)
	}
	c.lookups++
	h := quickHash(b)
	if s := c.vals[h]; s == string(b) {
		c.hits++
		return s
	}
	s := a.str(b)
	c.vals[h] = s
	if c.lookups&1023 == 0 && c.hits < c.lookups/8 {
		c.off = true
	}
	return s
}

// quickHash maps b to a cache slot (0..15) from its length and up to 24 of
// its bytes: enough to spread typical field values, far cheaper than
// hashing every byte.
func quickHash(b []byte) uint32 {
	n := len(b)
	x := uint64(n)
	if n >= 8 {
		x ^= binary.LittleEndian.Uint64(b)
		x = (x ^ binary.LittleEndian.Uint64(b[n-8:])) * 0x9E3779B97F4A7C15
		x ^= binary.LittleEndian.Uint64(b[n/2-4:])
	} else {
		for _, c := range b {
			x = x<<8 | uint64(c)
		}
	}
	x *= 0x9E3779B97F4A7C15
	return uint32(x >> 60)
}
