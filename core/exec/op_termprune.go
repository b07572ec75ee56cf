package exec

import (
	"slices"

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
