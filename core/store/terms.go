package store

import (
	"encoding/binary"
	"errors"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
	"github.com/cespare/xxhash/v2"
)

// Term filters (FORMAT.md, block versions 2 and 3): Bloom filters over the
// lower-cased terms of a string column's values, one per granule of 8192
// rows since version 3 (one per block in version 2), so `has`, `search`
// and `where * has` skip the blocks, and the stretches of a block, that
// cannot hold a rare word without reading them. A term is a maximal run of Unicode letters
// and digits, as APL's `has` defines it; a value that has a needle holds
// every term of the needle as a whole term, so a block whose filter lacks
// one of them cannot match.

const (
	termHashes = 7 // bits set per term: ~0.3% false positives at 12 bits a term
	// termBitsPer is the filter bits per distinct term. At 8 (2.3% false
	// positives) a rare word's search at ten million events read 33
	// granules of 129 for nothing; at 12 (0.33%) about 4. The filters of
	// the benchmarks' messages grow from 1.85 to 2.78 bytes a row (the
	// pages take 30.6), about 1% of a realistic event's stored bytes.
	termBitsPer = 12
	// termBitsIdent sizes the filter of a granule with a new term on
	// nearly every row (request ids, trace ids), which an equality
	// lookup tests: at 6 bits (~7% false positives) `where id == "…"`
	// over a million fresh events read 7 granules of 122 for one; at 10
	// (~0.8%) it reads the one (the id column's filters cost 1.25 B an
	// event instead of 0.75).
	termBitsIdent  = 10
	maxTermFilter  = 1 << 20 // bytes; granules with more distinct terms get no filter
	maxFilterTerms = maxTermFilter * 8 / termBitsPer
	// termGranule is the rows per filter a writer uses: small enough that
	// a word in one request of ten thousand leaves most of a block
	// unread, large enough that a filter costs about a byte per event.
	termGranule = 8192
	// maxTermsField bounds the whole terms field of a column (version 3).
	maxTermsField = 64 << 20
)

// Terms splits s into its lower-cased terms, as `has` matches them.
func Terms(s string) []string {
	var out []string
	forTerms(s, nil, func(t []byte) { out = append(out, string(t)) })
	return out
}

// forTerms calls f with each lower-cased term of s; buf is scratch space.
// ASCII, most of what logs hold, takes a byte at a time through a table;
// other runes go through unicode, so both agree on every input.
func forTerms(s string, buf []byte, f func([]byte)) []byte {
	buf = buf[:0]
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if l := asciiTerm[c]; l != 0 {
				buf = append(buf, l)
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			r = unicode.ToLower(r)
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				buf = utf8.AppendRune(buf, r)
				continue
			}
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

// asciiTerm maps an ASCII byte that belongs to a term to its lower case,
// and every other byte to 0.
var asciiTerm = func() (t [utf8.RuneSelf]byte) {
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	return t
}()

// TermFilter answers "may these rows of a block's column hold the term?"
// with no false negatives, per granule of rows.
type TermFilter struct {
	// granuleRows is the rows per granule; the last may be shorter. A
	// version 2 filter is one granule over the whole block.
	granuleRows int
	// granules are the Bloom bits per granule; nil may hold anything.
	granules [][]byte

	// fetch, when set, loads the filter on first use: a block on object
	// storage keeps its filters out of the catalog (OBJECTS.md). It
	// returns nil when the filter cannot be had, which holds anything.
	fetch   func() *TermFilter
	once    sync.Once
	fetched *TermFilter
}

// lazyTermFilter is a filter that fetch loads when first asked.
func lazyTermFilter(fetch func() *TermFilter) *TermFilter { return &TermFilter{fetch: fetch} }

// resolved is the filter itself, loading it first if it is lazy; nil
// when it could not be loaded.
func (f *TermFilter) resolved() *TermFilter {
	if f.fetch == nil {
		return f
	}
	f.once.Do(func() { f.fetched = f.fetch() })
	return f.fetched
}

// Granules reports, per granule of granuleRows rows, whether the granule
// may hold every one of terms. A filter that could not be loaded reports
// one granule that may hold anything.
func (f *TermFilter) Granules(terms []string) (granuleRows int, may []bool) {
	if f = f.resolved(); f == nil {
		return 0, []bool{true}
	}
	hs := make([]uint64, len(terms))
	for i, t := range terms {
		hs[i] = xxhash.Sum64String(t)
	}
	may = make([]bool, len(f.granules))
	for g, bits := range f.granules {
		may[g] = true
		for _, h := range hs {
			if bits != nil && !bloomTest(bits, h) {
				may[g] = false
				break
			}
		}
	}
	return f.granuleRows, may
}

func bloomTest(bits []byte, h uint64) bool {
	m := uint64(len(bits)) * 8
	h1, h2 := h, h>>32|1
	for i := uint64(0); i < termHashes; i++ {
		b := (h1 + i*h2) % m
		if bits[b/8]&(1<<(b%8)) == 0 {
			return false
		}
	}
	return true
}

func bloomSet(bits []byte, h uint64) {
	m := uint64(len(bits)) * 8
	h1, h2 := h, h>>32|1
	for i := uint64(0); i < termHashes; i++ {
		b := (h1 + i*h2) % m
		bits[b/8] |= 1 << (b % 8)
	}
}

// buildTermFilter returns the version 3 terms field of a string column:
// one filter per granule of termGranule rows over the terms of its
// values; nil when no granule has a term. pause, if set, is called
// before each granule but the first.
func buildTermFilter(v *vector.Vector, n int, pause func()) []byte {
	if v == nil || v.Type != vector.String || n == 0 {
		return nil
	}
	ng := (n + termGranule - 1) / termGranule
	out := binary.AppendUvarint(nil, termGranule)
	out = binary.AppendUvarint(out, uint64(ng))
	// Whether values repeat is judged once a column, as the pager does:
	// a column's granules are alike, and the test costs a map of 2048.
	tb := termBuilder{dedup: v.Strs != nil && v.Codes == nil && mostlyRepeated(v.Strs[:n])}
	any := false
	for g := range ng {
		if pause != nil && g > 0 {
			pause()
		}
		lo, hi := g*termGranule, min((g+1)*termGranule, n)
		st := tb.granule(v, lo, hi)
		if tb.hashes.n == 0 || tb.hashes.n > maxFilterTerms {
			out = binary.AppendUvarint(out, 0)
			continue
		}
		per := termBitsPer
		if st.terms*2 <= st.values*3 && tb.hashes.n*10 >= (hi-lo)*9 {
			per = termBitsIdent
		}
		bits := make([]byte, max(8, (tb.hashes.n*per+7)/8))
		tb.hashes.each(func(h uint64) { bloomSet(bits, h) })
		out = binary.AppendUvarint(out, uint64(len(bits)))
		out = append(out, bits...)
		any = true
	}
	if !any || len(out) > maxTermsField {
		return nil
	}
	return out
}

// termStats counts what a granule's terms were read from: values and the
// terms in them (each distinct value once).
type termStats struct{ values, terms int }

// termBuilder gathers the distinct term hashes of one granule at a time,
// its tables reused from granule to granule. Filters are built on the
// ingest path (the seal), so this is written for speed: the hashes go
// into an open-addressing set (a Go map cost half the build), and a
// column of repeated values (methods, user agents, URLs) is split into
// terms once per distinct value of the granule, not once per row.
type termBuilder struct {
	hashes hashSet
	dedup  bool                // the column's values repeat: split each once
	seen   map[string]struct{} // the granule's values, when dedup
	codes  map[uint32]struct{}
	buf    []byte
	st     termStats
}

// granule fills b.hashes with the term hashes of rows [lo, hi) of v and
// stops adding past maxFilterTerms (the granule then gets no filter).
func (b *termBuilder) granule(v *vector.Vector, lo, hi int) termStats {
	b.hashes.reset()
	b.st = termStats{}
	if v.Codes != nil { // dictionary: each distinct code of the granule once
		if b.codes == nil {
			b.codes = make(map[uint32]struct{}, 256)
		}
		clear(b.codes)
		for i := lo; i < hi; i++ {
			if v.IsNull(i) {
				continue
			}
			c := v.Codes[i]
			if _, dup := b.codes[c]; dup {
				continue
			}
			b.codes[c] = struct{}{}
			if !b.add(v.Dict[c]) {
				break
			}
		}
		return b.st
	}
	dedup := b.dedup
	if dedup {
		if b.seen == nil {
			b.seen = make(map[string]struct{}, 256)
		}
		clear(b.seen)
	}
	prev := ""
	for i := lo; i < hi; i++ {
		if v.IsNull(i) {
			continue
		}
		s := v.Str(i)
		if s == prev && i != lo {
			continue
		}
		prev = s
		if dedup {
			if _, dup := b.seen[s]; dup {
				continue
			}
			b.seen[s] = struct{}{}
		}
		if !b.add(s) {
			break
		}
	}
	return b.st
}

// add adds the terms of s; false once the granule has too many. It
// splits ASCII itself, the same terms as forTerms without copying a term
// that has no upper-case letter (most of what logs hold) and without a
// call per term; at the first non-ASCII byte it hands the rest, from the
// start of the open term, to forTerms (a term begins after a boundary,
// so its terms are the ones forTerms finds in the whole value).
func (b *termBuilder) add(s string) bool {
	b.st.values++
	start, upper := -1, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			if start >= 0 {
				i = start
			}
			b.buf = forTerms(s[i:], b.buf, b.addTerm)
			return b.hashes.n <= maxFilterTerms
		}
		k := termClass[c]
		if k == 0 {
			if start >= 0 {
				b.addASCII(s[start:i], upper != 0)
				start, upper = -1, 0
			}
			continue
		}
		if start < 0 {
			start = i
		}
		upper |= k & 2
	}
	if start >= 0 {
		b.addASCII(s[start:], upper != 0)
	}
	return b.hashes.n <= maxFilterTerms
}

// addASCII adds one ASCII term, lower-casing it first if it has an upper
// case letter.
func (b *termBuilder) addASCII(t string, upper bool) {
	b.st.terms++
	if !upper {
		b.hashes.add(xxhash.Sum64String(t))
		return
	}
	b.buf = b.buf[:0]
	for i := 0; i < len(t); i++ {
		b.buf = append(b.buf, asciiTerm[t[i]])
	}
	b.hashes.add(xxhash.Sum64(b.buf))
}

// addTerm adds one lower-cased term (forTerms' callback).
func (b *termBuilder) addTerm(t []byte) {
	b.st.terms++
	b.hashes.add(xxhash.Sum64(t))
}

// termClass classes an ASCII byte for termBuilder.add: 0 a boundary, 1 a
// lower-case letter or digit, 3 an upper-case letter (bit 2: lower it).
var termClass = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case asciiTerm[c] == 0:
		case c >= 'A' && c <= 'Z':
			t[c] = 3
		default:
			t[c] = 1
		}
	}
	return t
}()

// hashSet is a set of 64-bit term hashes: open addressing with linear
// probing over a power-of-two table, indexed by the hash's own bits
// (xxHash's are uniform). 0 marks an empty slot, so the hash 0 is kept
// aside.
type hashSet struct {
	slots []uint64
	n     int
	zero  bool
}

// reset empties the set, keeping its table.
func (s *hashSet) reset() {
	clear(s.slots)
	s.n, s.zero = 0, false
}

// add puts h in the set.
func (s *hashSet) add(h uint64) {
	if h == 0 {
		if !s.zero {
			s.zero = true
			s.n++
		}
		return
	}
	if (s.n+1)*2 > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return
		case 0:
			s.slots[i] = h
			s.n++
			return
		}
	}
}

// grow doubles the table (at least 1024 slots) and re-inserts.
func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(1024, 2*len(old)))
	mask := uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = h
	}
}

// each calls f with every hash in the set.
func (s *hashSet) each(f func(uint64)) {
	if s.zero {
		f(0)
	}
	for _, h := range s.slots {
		if h != 0 {
			f(h)
		}
	}
}

// parseTermFilter reads a column's terms field as the block's version
// wrote it; rows is the block's row count.
func parseTermFilter(field []byte, version, rows int) (*TermFilter, error) {
	if version == 2 {
		return &TermFilter{granuleRows: max(rows, 1), granules: [][]byte{field}}, nil
	}
	gr, n := binary.Uvarint(field)
	if n <= 0 || gr == 0 || gr > 1<<31 {
		return nil, errors.New("bad term granule size")
	}
	field = field[n:]
	ng, n := binary.Uvarint(field)
	if n <= 0 || ng != (uint64(rows)+gr-1)/gr {
		return nil, errors.New("term granule count does not match the rows")
	}
	field = field[n:]
	f := &TermFilter{granuleRows: int(gr), granules: make([][]byte, ng)}
	for g := range f.granules {
		l, n := binary.Uvarint(field)
		if n <= 0 || l > uint64(len(field)-n) || l > maxTermFilter {
			return nil, errors.New("term filter length out of bounds")
		}
		if l > 0 {
			f.granules[g] = field[n : n+int(l)]
		}
		field = field[n+int(l):]
	}
	if len(field) != 0 {
		return nil, errors.New("bytes after the term filters")
	}
	return f, nil
}

// putTermFilter appends a column's terms field (empty for none).
func putTermFilter(b, field []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(field)))
	return append(b, field...)
}
