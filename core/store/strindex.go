package store

import "hash/maphash"

// strIndex numbers distinct strings in order of first appearance. It is
// an open-addressing table over maphash: the dictionary build does one
// lookup per row, and this costs about half of a Go map's lookup because
// a slot keeps part of the hash and most probes never compare strings.
type strIndex struct {
	seed  maphash.Seed
	slots []uint64 // hash high 32 bits << 32 | code+1; 0 is empty
	keys  []string // by code
}

func newStrIndex(capacity int) *strIndex {
	n := 64
	for n < 2*capacity {
		n *= 2
	}
	return &strIndex{seed: maphash.MakeSeed(), slots: make([]uint64, n)}
}

// code returns the code of s, adding it when new (added reports that).
func (x *strIndex) code(s string) (code uint32, added bool) {
	h := maphash.String(x.seed, s)
	tag := h >> 32 << 32
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := x.slots[i]
		if e == 0 {
			code = uint32(len(x.keys))
			x.slots[i] = tag | uint64(code+1)
			x.keys = append(x.keys, s)
			if 2*len(x.keys) > len(x.slots) {
				x.grow()
			}
			return code, true
		}
		if e>>32<<32 == tag {
			if c := uint32(e) - 1; x.keys[c] == s {
				return c, false
			}
		}
	}
}

// lookup returns the code of s, or false when s was never added.
func (x *strIndex) lookup(s string) (uint32, bool) {
	h := maphash.String(x.seed, s)
	tag := h >> 32 << 32
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		e := x.slots[i]
		if e == 0 {
			return 0, false
		}
		if e>>32<<32 == tag {
			if c := uint32(e) - 1; x.keys[c] == s {
				return c, true
			}
		}
	}
}

// grow doubles the table, rehashing every key.
func (x *strIndex) grow() {
	x.slots = make([]uint64, 2*len(x.slots))
	mask := uint64(len(x.slots) - 1)
	for c, s := range x.keys {
		h := maphash.String(x.seed, s)
		i := h & mask
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = h>>32<<32 | uint64(c+1)
	}
}

// len is the number of distinct strings added.
func (x *strIndex) len() int { return len(x.keys) }
