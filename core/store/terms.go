package store

import (
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
	"github.com/cespare/xxhash/v2"
)

// Term filters (FORMAT.md, block version 2): a Bloom filter per string
// column of a block over the lower-cased terms of its values, so
// `has`, `search` and `where * has` skip blocks that cannot hold a rare
// word without reading them. A term is a maximal run of Unicode letters
// and digits, as APL's `has` defines it; a value that has a needle holds
// every term of the needle as a whole term, so a block whose filter lacks
// one of them cannot match.

const (
	termHashes     = 7       // bits set per term: ~1% false positives at 10 bits a term
	termBitsPer    = 10      // filter bits per distinct term
	maxTermFilter  = 1 << 20 // bytes; columns with more distinct terms get no filter
	maxFilterTerms = maxTermFilter * 8 / termBitsPer
)

// Terms splits s into its lower-cased terms, as `has` matches them.
func Terms(s string) []string {
	var out []string
	forTerms(s, nil, func(t []byte) { out = append(out, string(t)) })
	return out
}

// forTerms calls f with each lower-cased term of s; buf is scratch space.
func forTerms(s string, buf []byte, f func([]byte)) []byte {
	buf = buf[:0]
	for _, r := range s {
		r = unicode.ToLower(r)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf = utf8.AppendRune(buf, r)
			continue
		}
		if len(buf) > 0 {
			f(buf)
			buf = buf[:0]
		}
	}
	if len(buf) > 0 {
		f(buf)
	}
	return buf
}

// TermFilter answers "may this block's column hold the term?" with no
// false negatives.
type TermFilter struct {
	bits []byte
}

// MayHave reports whether term (lower-case, as Terms returns) may occur.
func (f *TermFilter) MayHave(term string) bool {
	h := xxhash.Sum64String(term)
	return f.test(h)
}

func (f *TermFilter) test(h uint64) bool {
	m := uint64(len(f.bits)) * 8
	h1, h2 := h, h>>32|1
	for i := uint64(0); i < termHashes; i++ {
		b := (h1 + i*h2) % m
		if f.bits[b/8]&(1<<(b%8)) == 0 {
			return false
		}
	}
	return true
}

func (f *TermFilter) set(h uint64) {
	m := uint64(len(f.bits)) * 8
	h1, h2 := h, h>>32|1
	for i := uint64(0); i < termHashes; i++ {
		b := (h1 + i*h2) % m
		f.bits[b/8] |= 1 << (b % 8)
	}
}

// buildTermFilter hashes the terms of a string column's values; nil when
// the column has no terms or too many distinct ones for a useful filter.
func buildTermFilter(v *vector.Vector, n int) []byte {
	if v == nil || v.Type != vector.String {
		return nil
	}
	hashes := map[uint64]struct{}{}
	var buf []byte
	add := func(s string) bool {
		buf = forTerms(s, buf, func(t []byte) { hashes[xxhash.Sum64(t)] = struct{}{} })
		return len(hashes) <= maxFilterTerms
	}
	if v.Codes != nil { // dictionary: each distinct value once
		for _, s := range v.Dict {
			if !add(s) {
				return nil
			}
		}
	} else {
		seen := map[string]struct{}{}
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				continue
			}
			s := v.Str(i)
			if _, dup := seen[s]; dup {
				continue
			}
			if len(seen) < 1<<16 {
				seen[s] = struct{}{}
			}
			if !add(s) {
				return nil
			}
		}
	}
	if len(hashes) == 0 {
		return nil
	}
	size := max(8, (len(hashes)*termBitsPer+7)/8)
	f := &TermFilter{bits: make([]byte, size)}
	for h := range hashes {
		f.set(h)
	}
	return f.bits
}

// putTermFilter appends a column's filter (empty for none).
func putTermFilter(b, bits []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(bits)))
	return append(b, bits...)
}
