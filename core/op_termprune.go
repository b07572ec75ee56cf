package core

import (
	"slices"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// termGranules narrows the scan of a predicate built from `col has
// "word"` (and has_cs, in any and/or combination, as `search` and
// `where * has` expand to) with the blocks' term filters: a value that has
// a needle holds every term of it, so rows under a filter that lacks one
// of them cannot match. The returned test gives, per granule of
// termGranuleRows rows of a part, whether some row may match (nil: every
// row may); no granule at all skips the part. Anything the filters cannot
// decide counts as "may match". It returns nil when the predicate holds no
// such test.
func termGranules(s schema, e parser.Expr) func(store.Part) []bool {
	if !hasTermTest(e) {
		return nil
	}
	return func(p store.Part) []bool {
		ng := (p.Rows() + termGranuleRows - 1) / termGranuleRows
		return mayMatchGranules(e, s, p, ng)
	}
}

// termGranuleRows is the resolution of the scan's granule masks: the
// granule the store writes. A filter of another granule size (a version 2
// block's one filter) answers for the whole part.
const termGranuleRows = 8192

func hasTermTest(e parser.Expr) bool {
	b, ok := e.(*parser.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case "and", "or":
		return hasTermTest(b.L) || hasTermTest(b.R)
	case "has", "has_cs":
		_, okName := dottedName(b.L)
		_, star := b.L.(*parser.StarExpr)
		lit, okLit := b.R.(*parser.Literal)
		return (okName || star) && okLit && lit.Kind == parser.LitString
	}
	return false
}

// mayMatchGranules is, per granule of p, false only when no row of the
// granule can satisfy e.
func mayMatchGranules(e parser.Expr, s schema, p store.Part, ng int) []bool {
	b, ok := e.(*parser.BinaryExpr)
	if !ok {
		return allGranules(ng, true)
	}
	switch b.Op {
	case "and", "or":
		l, r := mayMatchGranules(b.L, s, p, ng), mayMatchGranules(b.R, s, p, ng)
		for i := range l {
			if b.Op == "and" {
				l[i] = l[i] && r[i]
			} else {
				l[i] = l[i] || r[i]
			}
		}
		return l
	case "has", "has_cs":
		lit, okLit := b.R.(*parser.Literal)
		if !okLit || lit.Kind != parser.LitString {
			return allGranules(ng, true)
		}
		terms := store.Terms(lit.Value.(string))
		if _, star := b.L.(*parser.StarExpr); star {
			return starGranules(s, p, terms, ng)
		}
		name, okName := dottedName(b.L)
		if !okName {
			return allGranules(ng, true)
		}
		if ci := s.index(name); ci < 0 || s[ci].Type != vector.String {
			return allGranules(ng, true) // numbers, dynamics: rendered as text per row
		}
		return columnGranules(p, name, terms, ng)
	}
	return allGranules(ng, true)
}

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
		if rows != termGranuleRows || len(may) != ng {
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

// starGranules decides `* has x`, which tests every string and dynamic
// column (wherePredicate).
func starGranules(s schema, p store.Part, terms []string, ng int) []bool {
	out := allGranules(ng, false)
	for _, c := range s {
		switch c.Type {
		case vector.Dynamic:
			return allGranules(ng, true)
		case vector.String:
			for i, ok := range columnGranules(p, c.Name, terms, ng) {
				out[i] = out[i] || ok
			}
		}
	}
	return out
}
