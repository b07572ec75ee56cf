package ingest

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// strCache interns the string values of one field, so every repeat of a
// value (an HTTP method, a country, a user agent) shares one string
// instead of copying its bytes again. Sharing saves arena memory for the
// buffered rows and, more, time when the batch is sealed: the store builds
// each column's dictionary over these strings, and a string it has seen
// at the same address is answered from a small cache without hashing its
// bytes again or touching cold memory.
//
// It is an open-addressing table that grows with the field's distinct
// values up to maxCacheSlots, then replaces entries. It switches itself
// off for a field whose values rarely repeat (ids, trace ids), where it
// would only cost a hash per value.
type strCache struct {
	slots []cacheSlot
	used  int
	off   bool
	tries uint32 // lookups in the current window
	hits  uint32 // hits in the current window
}

const (
	// Values longer than this are copied without consulting the cache:
	// long values are rarely repeated and cost the most to hash.
	maxCachedLen = 256
	// The table starts small (most fields have few distinct values) and
	// doubles while it is over half full, up to maxCacheSlots.
	minCacheSlots = 64
	maxCacheSlots = 1024
	// maxProbe bounds a lookup's probe sequence, so a full table costs a
	// few compares at most.
	maxProbe = 8
	// Every cacheWindow lookups the hit rate is checked; below one in
	// minHitDiv (with the table at its largest) the cache turns itself
	// off for the rest of the request.
	cacheWindow = 256
	minHitDiv   = 8
)

// cacheSlot is one cached value, packed into 16 bytes so a probe touches
// one cache line: the value's bytes, its length and hash bits.
type cacheSlot struct {
	p   *byte
	tag uint32 // hash bits | 1; 0 is an empty slot
	n   uint16
	// plain marks a value that appears verbatim between quotes in JSON,
	// so input bytes equal to it and followed by a quote are that value.
	plain bool
}

func (s *cacheSlot) str() string { return unsafe.String(s.p, s.n) }

// get returns a string equal to b, from the cache or the arena.
func (c *strCache) get(b []byte, a *arena) string {
	if c.off || len(b) > maxCachedLen {
		return a.str(b)
	}
	if c.slots == nil {
		c.slots = make([]cacheSlot, minCacheSlots)
	}
	h := valueHash(b)
	tag := uint32(h>>32) | 1
	mask := uint64(len(c.slots) - 1)
	home := h & mask
	c.tries++
	for p, i := 0, home; p < maxProbe; p, i = p+1, (i+1)&mask {
		e := &c.slots[i]
		if e.tag == 0 {
			c.used++
			return c.add(e, tag, b, a)
		}
		if e.tag == tag && int(e.n) == len(b) && e.str() == string(b) {
			c.hits++
			return e.str()
		}
	}
	// The probe sequence is full: the value replaces the one at its home
	// slot, keeping recent values cached once the table stops growing.
	return c.add(&c.slots[home], tag, b, a)
}

// raw finds the value whose JSON string starts at buf[start] (after the
// opening quote) without scanning it: the next quote gives its length if
// it has no escapes, and a cached plain value equal to the bytes up to it
// is the value (it holds no quote, backslash or control byte, and is valid
// UTF-8). It returns the cached string, or false when the caller must scan
// the string and call get.
func (c *strCache) raw(buf []byte, start int) (string, bool) {
	if len(c.slots) == 0 {
		return "", false
	}
	k := bytes.IndexByte(buf[start:min(len(buf), start+maxCachedLen+1)], '"')
	if k < 0 {
		return "", false
	}
	b := buf[start : start+k]
	h := valueHash(b)
	tag := uint32(h>>32) | 1
	mask := uint64(len(c.slots) - 1)
	for p, i := 0, h&mask; p < maxProbe; p, i = p+1, (i+1)&mask {
		e := &c.slots[i]
		if e.tag == 0 {
			return "", false
		}
		if e.tag == tag && int(e.n) == k && e.plain && e.str() == string(b) {
			c.tries++
			c.hits++
			return e.str(), true
		}
	}
	return "", false
}

// add copies b into the arena and caches it in slot e.
func (c *strCache) add(e *cacheSlot, tag uint32, b []byte, a *arena) string {
	s := a.str(b)
	*e = cacheSlot{unsafe.StringData(s), tag, uint16(len(s)), isPlain(s)}
	c.check()
	return s
}

// check runs after a miss: it grows the table while it is over half full
// and, once it cannot grow, turns the cache off at the end of a window
// with too few hits. Judging only a full table keeps a field of a few
// hundred values seen round-robin (no repeat yet in the first window) on.
func (c *strCache) check() {
	if 2*c.used > len(c.slots) && len(c.slots) < maxCacheSlots {
		c.grow()
	}
	if c.tries >= cacheWindow {
		if c.hits < c.tries/minHitDiv && len(c.slots) == maxCacheSlots {
			c.off = true
			c.slots = nil
		}
		c.tries, c.hits = 0, 0
	}
}

// grow doubles the table, rehashing the cached values.
func (c *strCache) grow() {
	old := c.slots
	c.slots = make([]cacheSlot, 2*len(old))
	c.used = 0
	mask := uint64(len(c.slots) - 1)
	for _, e := range old {
		if e.tag == 0 {
			continue
		}
		h := valueHash(unsafe.Slice(e.p, e.n))
		for p, i := 0, h&mask; p < maxProbe; p, i = p+1, (i+1)&mask {
			if c.slots[i].tag == 0 {
				c.slots[i] = e
				c.used++
				break
			}
		}
	}
}

// valueHash hashes b from its length and three of its words (all of it up
// to 16 bytes): field values that differ tend to differ near the start,
// the middle or the end, and sampling is several times cheaper than
// hashing every byte of a user agent. Values it confuses still compare
// unequal; they only share a probe sequence, which is bounded.
func valueHash(b []byte) uint64 {
	const k1, k2 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F
	n := len(b)
	var x, y uint64
	switch {
	case n >= 8:
		x = binary.LittleEndian.Uint64(b)
		y = binary.LittleEndian.Uint64(b[n-8:])
		if n > 16 {
			x ^= bits.RotateLeft64(binary.LittleEndian.Uint64(b[n/2-4:]), 29)
		}
	case n >= 4:
		x = uint64(binary.LittleEndian.Uint32(b))
		y = uint64(binary.LittleEndian.Uint32(b[n-4:]))
	default:
		for _, c := range b {
			x = x<<8 | uint64(c)
		}
	}
	// Multiplying by an odd constant loses nothing; the finalizer of
	// murmur3 then spreads every bit into the low bits the slot index
	// comes from.
	h := x*k1 ^ bits.RotateLeft64(y*k2, 32) ^ uint64(n)
	h = (h ^ h>>33) * 0xFF51AFD7ED558CCD
	h = (h ^ h>>33) * 0xC4CEB9FE1A85EC53
	return h ^ h>>33
}
