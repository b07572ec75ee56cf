package store

import (
	"encoding/hex"
	"slices"
	"unsafe"
)

// String encodings (FORMAT.md).
const (
	strPlain = 0
	strDict  = 1
	strHex   = 2
)

// maxStrDict bounds a string dictionary; above it plain+zstd does as well.
const maxStrDict = 1 << 16

// The address cache of strDictOf.
const (
	dictCacheBits = 8
	dictCacheSize = 1 << dictCacheBits
)

type dictCacheSlot struct {
	p    *byte
	n    int
	code uint32
}

// strDictOf returns the sorted distinct values and each value's code, or
// false when there are too many distinct values for a dictionary to pay.
// The codes come from the scratch pool (putU64s when done).
func strDictOf(vals []string) ([]string, []uint64, bool) {
	limit := min(maxStrDict, len(vals)/2+1)
	idx := newStrIndex(64)
	codes := getU64s(len(vals))
	// Ingest often shares one string for a repeated value, so a small
	// cache keyed by the string's address answers some lookups without
	// hashing its bytes.
	var recent [dictCacheSize]dictCacheSlot
	for i, s := range vals {
		p := unsafe.StringData(s)
		slot := &recent[(uintptr(unsafe.Pointer(p))*0x9E3779B97F4A7C15)>>(64-dictCacheBits)]
		if slot.p == p && slot.n == len(s) && p != nil {
			codes[i] = uint64(slot.code)
			continue
		}
		c, added := idx.code(s)
		if added && idx.len() > limit {
			putU64s(codes)
			return nil, nil, false
		}
		*slot = dictCacheSlot{p, len(s), c}
		codes[i] = uint64(c)
	}
	// Sort the dictionary so it doubles as min/max and ordered compare.
	sorted := slices.Clone(idx.keys)
	slices.Sort(sorted)
	remap := make([]uint64, len(sorted))
	for newCode, s := range sorted {
		old, _ := idx.lookup(s)
		remap[old] = uint64(newCode)
	}
	for i, c := range codes {
		codes[i] = remap[c]
	}
	return sorted, codes, true
}

func putStrDict(dst []byte, dict []string, codes []uint64, aligned bool) []byte {
	w := widthOf(uint64(max(len(dict)-1, 0)))
	if aligned {
		w = alignWidth(w)
	}
	return putPacked(putStrDictHead(dst, dict), codes, w)
}

// putStrDictHead appends the dictionary part of the dict encoding.
func putStrDictHead(dst []byte, dict []string) []byte {
	dst = append(dst, strDict)
	dst = putUvarint(dst, uint64(len(dict)))
	for _, s := range dict {
		dst = putBytes(dst, s)
	}
	return dst
}

// strDictVariants returns, after head, the dict encoding with bit-packed codes and,
// when the width is not whole bytes, with byte-aligned codes for the
// compressors; the dictionary is written once and shared.
func strDictVariants(head []byte, dict []string, codes []uint64) []variant {
	head = putStrDictHead(slices.Grow(slices.Clip(head), dictBytes(dict)+2*len(dict)+16), dict)
	w := widthOf(uint64(max(len(dict)-1, 0)))
	pack := func(w int) []byte {
		return putPacked(slices.Grow(slices.Clip(head), packedLen(len(codes), w)), codes, w)
	}
	if aw := alignWidth(w); aw != w {
		return []variant{{pack(w), false}, {pack(aw), true}}
	}
	return []variant{{pack(w), true}}
}

func putStrPlain(dst []byte, vals []string, aligned bool) []byte {
	dst = append(dst, strPlain)
	lens := make([]int64, len(vals))
	total := 0
	for i, s := range vals {
		lens[i] = int64(len(s))
		total += len(s)
	}
	dst = putInts(slices.Grow(dst, total+4*len(vals)+32), lens, aligned)
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
	var seen byte // the classes of every byte so far, or'ed
	for _, s := range vals {
		if len(s) != l {
			return -1
		}
		var acc byte
		for i := 0; i < len(s); i++ {
			c := hexClass[s[i]]
			if c == 0 {
				return -1
			}
			acc |= c
		}
		if seen |= acc; seen&(hexLower|hexUpper) == hexLower|hexUpper {
			return -1
		}
	}
	if seen&hexUpper != 0 {
		return 1
	}
	return 0
}

// Classes of hexClass: 0 means not a hex digit.
const (
	hexDigit = 1 << iota
	hexLower
	hexUpper
)

var hexClass = func() (t [256]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = hexDigit
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = hexLower
	}
	for c := 'A'; c <= 'F'; c++ {
		t[c] = hexUpper
	}
	return t
}()

func putStrHex(dst []byte, vals []string, cas int) []byte {
	l := len(vals[0]) / 2
	dst = append(dst, strHex, byte(cas))
	dst = putUvarint(dst, uint64(l))
	start := len(dst)
	dst = append(dst, make([]byte, l*len(vals))...)
	out := dst[start:]
	for _, s := range vals {
		// Every byte is a hex digit: hexCase checked.
		for j := 0; j < l; j++ {
			out[j] = hexNibble[s[2*j]]<<4 | hexNibble[s[2*j+1]]
		}
		out = out[l:]
	}
	return dst
}

// hexNibble is the value of a hex digit (either case).
var hexNibble = func() (t [256]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
		t[c-'a'+'A'] = byte(c - 'a' + 10)
	}
	return t
}()

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
	arena := b
	if !r.private {
		arena = slices.Clone(b) // never alias mapped memory
	}
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
