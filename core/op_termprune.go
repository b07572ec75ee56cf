package core

import (
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// termPrune skips parts that cannot satisfy a predicate built from
// `col has "word"` (and has_cs, in any and/or combination, as `search`
// and `where * has` expand to), using the blocks' term filters: a value
// that has a needle holds every term of it, so a part whose filter for
// the column lacks one of them has no matching row. Anything the filters
// cannot decide counts as "may match". It returns nil when the predicate
// holds no such test.
func termPrune(s schema, e parser.Expr) func(store.Part) bool {
	if !hasTermTest(e) {
		return nil
	}
	return func(p store.Part) bool { return !mayMatchTerms(e, s, p) }
}

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

// mayMatchTerms is false only when no row of p can satisfy e.
func mayMatchTerms(e parser.Expr, s schema, p store.Part) bool {
	b, ok := e.(*parser.BinaryExpr)
	if !ok {
		return true
	}
	switch b.Op {
	case "and":
		return mayMatchTerms(b.L, s, p) && mayMatchTerms(b.R, s, p)
	case "or":
		return mayMatchTerms(b.L, s, p) || mayMatchTerms(b.R, s, p)
	case "has", "has_cs":
		lit, okLit := b.R.(*parser.Literal)
		if !okLit || lit.Kind != parser.LitString {
			return true
		}
		if _, star := b.L.(*parser.StarExpr); star {
			return starMayHave(s, p, store.Terms(lit.Value.(string)))
		}
		name, okName := dottedName(b.L)
		if !okName {
			return true
		}
		if ci := s.index(name); ci < 0 || s[ci].Type != vector.String {
			return true // numbers, dynamics: rendered as text per row
		}
		return partMayHave(p, name, store.Terms(lit.Value.(string)))
	}
	return true
}

// partMayHave reports whether some column of p named name may hold every
// term. A part without the column holds only nulls there, which have no
// term.
func partMayHave(p store.Part, name string, terms []string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, m := range p.Columns() {
		if m.Key.Name != name {
			continue
		}
		if m.Key.Type != vector.String || m.Terms == nil {
			return true
		}
		all := true
		for _, t := range terms {
			if !m.Terms.MayHave(t) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// starMayHave decides `* has x`, which tests every string and dynamic
// column (wherePredicate).
func starMayHave(s schema, p store.Part, terms []string) bool {
	for _, c := range s {
		switch c.Type {
		case vector.Dynamic:
			return true
		case vector.String:
			if partMayHave(p, c.Name, terms) {
				return true
			}
		}
	}
	return false
}
