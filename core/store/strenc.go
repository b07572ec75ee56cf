package store

import (
	"encoding/hex"
	"slices"
)

// String encodings (FORMAT.md).
const (
	strPlain = 0
	strDict  = 1
	strHex   = 2
)

// maxStrDict bounds a string dictionary; above it plain+zstd does as well.
const maxStrDict = 1 << 16

// strDictOf returns the sorted distinct values and each value's code, or
// false when there are too many distinct values for a dictionary to pay.
func strDictOf(vals []string) ([]string, []uint64, bool) {
	limit := min(maxStrDict, len(vals)/2+1)
	idx := make(map[string]uint32, 64)
	codes := make([]uint64, len(vals))
	var dict []string
	for i, s := range vals {
		c, ok := idx[s]
		if !ok {
			if len(dict) == limit {
				return nil, nil, false
			}
			c = uint32(len(dict))
			idx[s] = c
			dict = append(dict, s)
		}
		codes[i] = uint64(c)
	}
	// Sort the dictionary so it doubles as min/max and ordered compare.
	order := make([]uint32, len(dict))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		switch x, y := dict[a], dict[b]; {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	remap := make([]uint64, len(dict))
	sorted := make([]string, len(dict))
	for newCode, old := range order {
		remap[old] = uint64(newCode)
		sorted[newCode] = dict[old]
	}
	for i, c := range codes {
		codes[i] = remap[c]
	}
	return sorted, codes, true
}

func putStrDict(dst []byte, dict []string, codes []uint64, aligned bool) []byte {
	dst = append(dst, strDict)
	dst = putUvarint(dst, uint64(len(dict)))
	for _, s := range dict {
		dst = putBytes(dst, s)
	}
	w := widthOf(uint64(max(len(dict)-1, 0)))
	if aligned {
		w = alignWidth(w)
	}
	return putPacked(dst, codes, w)
}

func putStrPlain(dst []byte, vals []string, aligned bool) []byte {
	dst = append(dst, strPlain)
	lens := make([]int64, len(vals))
	for i, s := range vals {
		lens[i] = int64(len(s))
	}
	dst = putInts(dst, lens, aligned)
	for _, s := range vals {
		dst = append(dst, s...)
	}
	return dst
}

// hexCase reports whether every value is a hex string of the same even,
// non-zero length in a single letter case: 0 lower, 1 upper, -1 not hex.
// Random ids (trace ids, request ids) are then stored as half the bytes.
func hexCase(vals []string) int {
	if len(vals) == 0 || len(vals[0]) == 0 || len(vals[0])%2 != 0 {
		return -1
	}
	l := len(vals[0])
	lower, upper := true, true
	for _, s := range vals {
		if len(s) != l {
			return -1
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'f':
				upper = false
			case c >= 'A' && c <= 'F':
				lower = false
			default:
				return -1
			}
		}
		if !lower && !upper {
			return -1
		}
	}
	if lower {
		return 0
	}
	return 1
}

func putStrHex(dst []byte, vals []string, cas int) []byte {
	l := len(vals[0]) / 2
	dst = append(dst, strHex, byte(cas))
	dst = putUvarint(dst, uint64(l))
	start := len(dst)
	dst = append(dst, make([]byte, l*len(vals))...)
	for i, s := range vals {
		// Cannot fail: hexCase checked every byte.
		_, _ = hex.Decode(dst[start+i*l:start+(i+1)*l], []byte(s))
	}
	return dst
}

// readStrs decodes a string encoding. Plain and hex values land in dst
// (len n); a dictionary comes back as dict and codes instead.
func (r *reader) readStrs(dst []string) (dict []string, codes []uint64) {
	switch enc := r.u8(); enc {
	case strPlain:
		r.readStrPlain(dst)
	case strDict:
		k := r.count(1, "dictionary")
		dict = readStrings(r, k)
		codes = make([]uint64, len(dst))
		r.readPacked(codes)
		for _, c := range codes {
			if c >= uint64(k) {
				r.fail("dictionary code out of range")
				return nil, nil
			}
		}
		return dict, codes
	case strHex:
		r.readStrHex(dst)
	default:
		r.pos--
		r.fail("unknown string encoding")
	}
	return nil, nil
}

func (r *reader) readStrPlain(dst []string) {
	lens := make([]int64, len(dst))
	r.readInts(lens)
	total := 0
	for _, l := range lens {
		if l < 0 || l > int64(r.remaining()) {
			r.fail("string length out of range")
			return
		}
		total += int(l)
	}
	b := r.take(total)
	if r.err != nil {
		return
	}
	arena := slices.Clone(b) // never alias mapped memory
	off := 0
	for i, l := range lens {
		dst[i] = bytesToString(arena[off : off+int(l)])
		off += int(l)
	}
}

func (r *reader) readStrHex(dst []string) {
	cas := r.u8()
	l := r.count(0, "hex length")
	if cas > 1 || (len(dst) > 0 && l > r.remaining()/len(dst)) {
		r.fail("hex layout out of range")
		return
	}
	b := r.take(l * len(dst))
	if r.err != nil {
		return
	}
	arena := make([]byte, 2*len(b))
	hex.Encode(arena, b)
	if cas == 1 {
		for i, c := range arena {
			if c >= 'a' {
				arena[i] = c - 'a' + 'A'
			}
		}
	}
	for i := range dst {
		dst[i] = bytesToString(arena[2*l*i : 2*l*(i+1)])
	}
}
