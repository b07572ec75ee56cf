package exec

import (
	"slices"
	"strings"
	"unicode"

	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Term-filter pruning: a predicate built from `col has "word"` (and
// has_cs, in any and/or combination, as `search` and `where * has`
// expand to) narrows the scan with the blocks' term filters: a value that
// has a needle holds every term of it, so rows under a filter that lacks
// one of them cannot match. The test is read from the predicate's plan
// node (push.go: nodeGranules); it gives, per granule of
// TermGranuleRows rows of a part, whether some row may match, and
// anything the filters cannot decide counts as "may match".

// TermGranuleRows is the resolution of the scan's granule masks: the
// granule the store writes. A filter of another granule size (a version 2
// block's one filter) answers for the whole part.
const TermGranuleRows = 8192

// allGranules is a mask of ng granules, all v.
func allGranules(ng int, v bool) []bool {
	out := make([]bool, ng)
	if v {
		for i := range out {
			out[i] = true
		}
	}
	return out
}

// columnGranules reports per granule whether some column of p named name
// may hold every term. A part without the column holds only nulls there,
// which have no term.
func columnGranules(p store.Part, name string, terms []string, ng int) []bool {
	if len(terms) == 0 {
		return allGranules(ng, true)
	}
	out := allGranules(ng, false)
	for _, m := range p.Columns() {
		if m.Key.Name != name {
			continue
		}
		if m.Key.Type != vector.String || m.Terms == nil {
			return allGranules(ng, true)
		}
		rows, may := m.Terms.Granules(terms)
		if rows != TermGranuleRows || len(may) != ng {
			if slices.Contains(may, true) {
				return allGranules(ng, true)
			}
			continue
		}
		for i, ok := range may {
			out[i] = out[i] || ok
		}
	}
	return out
}

// Equality prunes by the same filters: a value equal to a needle holds
// every term of it (`==`, `in`), and one equal to it but for case holds
// every term of it in some spelling that folding allows (`=~`, `in~`).
// So `where id == "…"`, an id lookup, reads only the granules whose
// filters may hold the id's terms; a needle with no term (the empty
// string, punctuation) decides nothing.

// maxTermItems bounds the in-list items a scan tests against the
// filters of every part; a longer list is decided by the rows alone.
const maxTermItems = 1024

// maxSpellings bounds the spellings of one term of a case-insensitive
// needle (a term of many s, k or σ); past it the term is not tested.
const maxSpellings = 16

// termTest is what a node asks of a column's term filters: a row may
// match only if its value holds, for some alternative (an in-list's
// items), every term of it, each in one of its spellings.
type termTest struct {
	col  string
	alts [][][]string // alternative -> term -> spellings
}

// termTestOf reads n as a test the term filters decide, or nil: has and
// has_cs, ==, =~, in and in~ of a string column against string
// constants, and the substring operators by the whole terms inside their
// needle (substringTest).
func termTestOf(n *plan.Expr, s Schema) *termTest {
	if len(n.Args) < 2 {
		return nil
	}
	col := n.Args[0]
	if col.Kind != plan.KCol || col.Index >= len(s) || s[col.Index].Type != vector.String {
		return nil
	}
	needles := make([]string, 0, len(n.Args)-1)
	for _, k := range n.Args[1:] {
		text, ok := k.ConstValue().(string)
		if k.Kind != plan.KConst || !ok {
			return nil
		}
		needles = append(needles, text)
	}
	fold := false
	switch {
	case n.Kind == plan.KStr && len(needles) == 1 && isSubstringOp(n.Op):
		return substringTest(col.Name, n.Op, needles[0])
	case n.Kind == plan.KStr && (n.Op == "has" || n.Op == "has_cs") && len(needles) == 1:
	case n.Kind == plan.KCmp && n.Op == "==" && len(needles) == 1:
	case n.Kind == plan.KStr && n.Op == "=~" && len(needles) == 1:
		fold = true
	case n.Kind == plan.KIn && (n.Op == "in" || n.Op == "in~") && len(needles) <= maxTermItems:
		// in~ compares lower-cased values, whose terms are the value's
		// own (lower-casing is idempotent), so it needs no spellings.
	default:
		return nil
	}
	t := &termTest{col: col.Name}
	for _, needle := range needles {
		alt, ok := exactSpellings(needle), true
		if fold {
			alt, ok = foldSpellings(needle)
		}
		if !ok {
			return nil
		}
		t.alts = append(t.alts, alt)
	}
	return t
}

// exactSpellings is needle's terms, each in its one spelling.
func exactSpellings(needle string) [][]string {
	var out [][]string
	for _, term := range store.Terms(needle) {
		out = append(out, []string{term})
	}
	return out
}

// foldSpellings is the terms a value that strings.EqualFold matches to
// needle may hold, as the filters store them (lower-cased rune by rune):
// each rune of the value is in the needle rune's case-folding orbit
// (unicode.SimpleFold), and for a few runes the orbit lowers to more
// than one rune (s and ſ, k and the Kelvin sign lower alike, σ and ς
// do not). ok is false when some orbit mixes term and non-term runes, so
// the value's terms could be cut elsewhere.
func foldSpellings(needle string) (terms [][]string, ok bool) {
	var cur []string // the open term's spellings so far; nil: none open
	varied := false  // the open term has too many spellings to test
	end := func() {
		if cur != nil && !varied {
			terms = append(terms, cur)
		}
		cur, varied = nil, false
	}
	for _, r := range needle {
		lows, isTerm, same := foldLows(r)
		if !same {
			return nil, false
		}
		if !isTerm {
			end()
			continue
		}
		if cur == nil {
			cur = []string{""}
		}
		if varied = varied || len(cur)*len(lows) > maxSpellings; varied {
			continue
		}
		next := make([]string, 0, len(cur)*len(lows))
		for _, p := range cur {
			for _, l := range lows {
				next = append(next, p+string(l))
			}
		}
		cur = next
	}
	end()
	return terms, true
}

// foldLows is the distinct lower cases of r's folding orbit, whether
// they are term runes, and whether the whole orbit agrees on that.
func foldLows(r rune) (lows []rune, isTerm, same bool) {
	isTerm = termRune(r)
	for o := r; ; {
		l := unicode.ToLower(o)
		if termRune(o) != isTerm {
			return nil, false, false
		}
		if !slices.Contains(lows, l) {
			lows = append(lows, l)
		}
		if o = unicode.SimpleFold(o); o == r {
			return lows, isTerm, true
		}
	}
}

// termRune reports whether r belongs to a term as the filters split
// values: its lower case is a letter or a digit.
func termRune(r rune) bool {
	l := unicode.ToLower(r)
	return unicode.IsLetter(l) || unicode.IsDigit(l)
}

// granules is, per granule of p, whether some row may pass t.
func (t *termTest) granules(p store.Part, ng int) []bool {
	out := allGranules(ng, false)
	for _, alt := range t.alts {
		may := allGranules(ng, true)
		for _, spellings := range alt {
			any := allGranules(ng, false)
			for _, sp := range spellings {
				for i, ok := range columnGranules(p, t.col, []string{sp}, ng) {
					any[i] = any[i] || ok
				}
			}
			for i := range may {
				may[i] = may[i] && any[i]
			}
		}
		for i := range out {
			out[i] = out[i] || may[i]
		}
	}
	return out
}

// The substring operators (contains, startswith, endswith, hasprefix,
// hassuffix, each in either case) prune by the terms their needle holds
// whole: a value that contains "GET /api/v2/users" holds "api" and "v2"
// as terms, since the needle itself bounds them, while "GET" and "users"
// may be the ends of longer terms. A value's start bounds a needle's
// first term for startswith and hasprefix, its end the last one for
// endswith and hassuffix. Only ASCII needles are read: folding case, an
// ASCII needle's matches lower-case to the same bytes in the value,
// whose terms the filters store lower-cased rune by rune, so each whole
// term's one spelling is its lower case, whichever the operator's case.

// substringOps gives, per operator, whether the start and the end of a
// match are term boundaries of the value.
var substringOps = map[string][2]bool{
	"contains": {false, false}, "contains_cs": {false, false},
	"startswith": {true, false}, "startswith_cs": {true, false},
	"endswith": {false, true}, "endswith_cs": {false, true},
	"hasprefix": {true, false}, "hasprefix_cs": {true, false},
	"hassuffix": {false, true}, "hassuffix_cs": {false, true},
}

func isSubstringOp(op string) bool {
	_, ok := substringOps[op]
	return ok
}

// substringTest is the term test of col op needle for a substring
// operator: every whole term of the needle; nil when it has none.
func substringTest(col, op, needle string) *termTest {
	bounds := substringOps[op]
	var alt [][]string
	for _, t := range wholeTerms(needle, bounds[0], bounds[1]) {
		alt = append(alt, []string{t})
	}
	if len(alt) == 0 {
		return nil
	}
	return &termTest{col: col, alts: [][][]string{alt}}
}

// wholeTerms are the lower-cased terms of an ASCII needle that a match
// holds as whole terms: each run of term bytes with a boundary byte of the
// needle on both sides, or the needle's start (end) where the operator
// makes it a boundary. A needle with a byte past ASCII has none here.
func wholeTerms(needle string, startBound, endBound bool) []string {
	if !isASCII(needle) {
		return nil
	}
	var out []string
	for i := 0; i < len(needle); {
		if !isTermByte(needle[i]) {
			i++
			continue
		}
		j := i
		for j < len(needle) && isTermByte(needle[j]) {
			j++
		}
		if (i > 0 || startBound) && (j < len(needle) || endBound) {
			out = append(out, strings.ToLower(needle[i:j]))
		}
		i = j
	}
	return out
}
