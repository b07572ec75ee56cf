package exec

import (
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/aplite/aplite/vector"
)

// foldTerm is has/hasprefix/hassuffix (case-insensitive) for one ASCII
// needle: the same answers as hasTerm, without lower-casing every text
// (which allocated a copy of each message and made `where message has
// "x"` cost ~300 ns a row) and without a per-text ASCII check. In mode
// termAny it is contains, with containsFold's answers.
//
// Candidates come from a SWAR scan, eight bytes a step, for the needle's
// first two bytes with case folded (see scan); only they are compared
// and checked at term boundaries, so a common word costs one pass over
// the text. A non-ASCII text needs no other path: a hit is made of ASCII
// bytes, which lower-casing keeps, and lower-casing never turns a term
// rune into a boundary or back (checked over all of Unicode when this
// was written). The exceptions are the two runes that lower to ASCII,
// U+0130 (to "i") and U+212A (to "k"): a text holding one that the
// needle could use is answered by hasTerm (containsFold for contains).
//
// The case-sensitive term operators (has_cs, hasprefix_cs, hassuffix_cs)
// use the same scan without the folding (fold 0): hasTerm's strings.Index
// per row stopped at every first byte of the needle, and a rare word's
// search spent 90% of its time there (issue 29).
type foldTerm struct {
	low  string // the needle, lower case (as given when case-sensitive)
	mode int
	// fold is 0x20 in every lane when case is folded, 0 when it is not.
	fold uint64
	// b0 and b1 are the needle's first two bytes with bit 5 set, in
	// every byte lane; b1 is unused for a one-byte needle.
	b0, b1 uint64
	// one has every lane's top bit for a one-byte needle, whose second
	// byte test must pass everywhere, and is 0 otherwise.
	one uint64
	// special holds the runes (as UTF-8) whose lower case the needle
	// holds and that only the slow path folds right.
	special []string
	// rare is the needle's byte at rareAt that scanRare looks for
	// instead of scanning word by word, when useRare (ops_rarebyte.go).
	rare    byte
	rareAt  int
	useRare bool
}

// termAny is the matcher's mode for contains: a match anywhere, no
// boundaries (the term modes are in ops_string.go).
const termAny = -1

// lanes repeats a byte in the eight lanes of a word.
const lanes = 0x0101010101010101

func newFoldTerm(needle string, mode int) *foldTerm {
	return newTermMatcher(strings.ToLower(needle), mode, 0x20)
}

// newExactTerm is the case-sensitive matcher of needle.
func newExactTerm(needle string, mode int) *foldTerm {
	return newTermMatcher(needle, mode, 0)
}

// newTermMatcher builds the matcher of low, folding case when bit is 0x20.
func newTermMatcher(low string, mode int, bit byte) *foldTerm {
	f := &foldTerm{low: low, mode: mode, fold: lanes * uint64(bit), b0: lanes * uint64(low[0]|bit)}
	if len(low) > 1 {
		f.b1 = lanes * uint64(low[1]|bit)
	} else {
		f.one = 0x80 * lanes
	}
	if bit != 0 {
		if strings.IndexByte(low, 'i') >= 0 {
			f.special = append(f.special, "\u0130")
		}
		if strings.IndexByte(low, 'k') >= 0 {
			f.special = append(f.special, "\u212a")
		}
	}
	// Folding, a hit may hold a special rune, which only the word scan's
	// ASCII test leads to.
	if at, rare, ok := rareByte(low, bit != 0); ok && len(f.special) == 0 {
		f.rareAt, f.rare, f.useRare = at, rare, true
	}
	return f
}

// Match reports whether text has the needle as a term (prefix, suffix),
// or for contains anywhere.
func (f *foldTerm) Match(text string) bool {
	m := rareMeter{on: f.useRare}
	return f.match(text, &m)
}

// match is Match with the rare byte's scan used while m says it pays.
func (f *foldTerm) match(text string, m *rareMeter) bool {
	if len(text) < len(f.low) {
		// Lower-casing shortens no ASCII byte, and the runes that become
		// ASCII are longer than what they become.
		return false
	}
	var found, ascii bool
	if m.on {
		var stops int
		found, stops = f.scanRare(text)
		m.note(len(text), stops)
		// The rare byte's scan is used only when no special rune can
		// make a hit, so whether text is ASCII does not matter.
		ascii = true
	} else {
		found, ascii = f.scan(text)
	}
	if found || ascii || f.fold == 0 {
		return found
	}
	for _, s := range f.special {
		if strings.Contains(text, s) {
			if f.mode == termAny {
				return containsFold(text, f.low)
			}
			return hasTerm(text, f.low, false, f.mode)
		}
	}
	return false
}

// fill sets out[i] to match(strs[i]) != neg for the live rows: sel, or
// every row when sel is nil. The loop is here rather than behind a
// strPred so that a batch costs no call per row beyond match.
func (f *foldTerm) fill(strs []string, sel []int32, neg bool, out []bool) {
	m := rareMeter{on: f.useRare}
	if sel == nil {
		for i, s := range strs {
			out[i] = f.match(s, &m) != neg
		}
		return
	}
	for _, i := range sel {
		out[i] = f.match(strs[i], &m) != neg
	}
}

// hit checks a candidate start: the needle folded, then term boundaries
// as the mode wants them.
func (f *foldTerm) hit(text string, start int) bool {
	end := start + len(f.low)
	if f.fold == 0 {
		if text[start:end] != f.low {
			return false
		}
	} else if !equalFoldASCII(text[start:end], f.low) {
		return false
	}
	switch f.mode {
	case termAny:
		return true
	case termPrefix:
		return boundaryBefore(text, start)
	case termSuffix:
		return boundaryAfter(text, end)
	}
	return boundaryBefore(text, start) && boundaryAfter(text, end)
}

// boundaryBefore reports whether no term rune ends at text[:i].
func boundaryBefore(text string, i int) bool {
	if i == 0 {
		return true
	}
	if c := text[i-1]; c < utf8.RuneSelf {
		return !isTermByte(c)
	}
	return !isTermRune(lastRune(text[:i]))
}

// boundaryAfter reports whether no term rune starts at text[i:].
func boundaryAfter(text string, i int) bool {
	if i == len(text) {
		return true
	}
	if c := text[i]; c < utf8.RuneSelf {
		return !isTermByte(c)
	}
	return !isTermRune(firstRune(text[i:]))
}

// isTermByte is isTermRune for ASCII.
func isTermByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// zeroLanes has the top bit of each byte lane of x that is zero. A lane
// above a zero lane whose byte is 1 is marked too (the borrow runs into
// it): three operations instead of the exact test's five, and lanes are
// only candidates that hit checks.
func zeroLanes(x uint64) uint64 {
	return (x - lanes) &^ x & (0x80 * lanes)
}

// load8 reads the first eight bytes of s, little endian (the compiler
// makes one load of it).
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// scan finds the needle's ASCII occurrences in text. Setting bit 5 of a
// byte lower-cases an ASCII letter and maps no other byte onto a letter,
// so for a letter the lane test is exact and for another byte it admits
// one more byte, which hit rejects; no byte of 0x80 and up passes.
// ascii, when nothing is found, tells whether every byte was ASCII.
func (f *foldTerm) scan(text string) (found, ascii bool) {
	if len(text) < 9 {
		return f.scanShort(text)
	}
	var seen uint64 // every byte ORed, for the caller's ASCII test
	i := 0
	for rest := text; len(rest) >= 9; rest = rest[8:] {
		w := load8(rest[:8])
		seen |= w
		m := zeroLanes(w|f.fold^f.b0) & (zeroLanes(load8(rest[1:9])|f.fold^f.b1) | f.one)
		if m != 0 && f.tryLanes(text, i, m) {
			return true, false
		}
		i += 8
	}
	// The rest, one to eight bytes, as the last word of the text read
	// again from nine bytes before its end: lanes the loop looked at
	// already are masked off. Its ninth byte starts only a one-byte
	// needle.
	j := len(text) - 9
	w, w1 := load8(text[j:]), load8(text[j+1:])
	seen |= w1
	m := zeroLanes(w|f.fold^f.b0) & (zeroLanes(w1|f.fold^f.b1) | f.one)
	if m &^= 1<<((i-j)*8) - 1; m != 0 && f.tryLanes(text, j, m) {
		return true, false
	}
	if len(f.low) == 1 && f.hit(text, len(text)-1) {
		return true, false
	}
	return false, seen&(0x80*lanes) == 0
}

// tryLanes tries the candidate starts that m marks (the top bit of a lane)
// in the word from i.
func (f *foldTerm) tryLanes(text string, i int, m uint64) bool {
	last := len(text) - len(f.low)
	for ; m != 0; m &= m - 1 {
		start := i + bits.TrailingZeros64(m)>>3
		if start > last {
			return false
		}
		if f.hit(text, start) {
			return true
		}
	}
	return false
}

// scanShort is scan byte by byte, for texts shorter than the words'
// reach.
func (f *foldTerm) scanShort(text string) (found, ascii bool) {
	var seen byte
	for i := 0; i < len(text); i++ {
		seen |= text[i]
		if i+len(f.low) <= len(text) && text[i]|byte(f.fold) == byte(f.b0) && f.hit(text, i) {
			return true, false
		}
	}
	return false, seen < utf8.RuneSelf
}

// foldTermPred returns the fast matcher for a term operator (either
// case), or contains, over a constant ASCII needle, or nil.
func foldTermPred(op, needle string) *foldTerm {
	if !isASCII(needle) || needle == "" {
		return nil
	}
	switch strings.TrimPrefix(op, "!") {
	case "has":
		return newFoldTerm(needle, termWhole)
	case "hasprefix":
		return newFoldTerm(needle, termPrefix)
	case "hassuffix":
		return newFoldTerm(needle, termSuffix)
	case "contains":
		return newFoldTerm(needle, termAny)
	case "has_cs":
		return newExactTerm(needle, termWhole)
	case "hasprefix_cs":
		return newExactTerm(needle, termPrefix)
	case "hassuffix_cs":
		return newExactTerm(needle, termSuffix)
	}
	return nil
}

// vector is the operator's answer over a plain string column: the live
// rows only (a dead row's value is unspecified), a null text matching
// only the negated operator as in stringPredVectors.
func (f *foldTerm) vector(lv *vector.Vector, bt *Batch, neg bool) *vector.Vector {
	out := &vector.Vector{Type: vector.Bool, Len: bt.N, Bools: make([]bool, bt.N)}
	f.fill(lv.Strs[:bt.N], bt.Sel, neg, out.Bools)
	if lv.HasNulls() {
		for i := 0; i < bt.N; i++ {
			if lv.IsNull(i) {
				out.Bools[i] = neg
			}
		}
	}
	return out
}
