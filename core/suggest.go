package core

import (
	"strings"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/core/fn"
)

// "Did you mean" for a misspelt field, function or dataset: the known
// name nearest the one written, by edit distance ignoring case, when it
// is near enough to be a slip (a third of the name's length, at most 3
// edits) rather than another name. The CLI and the server's 400 bodies
// share the text, since both print the planner's error.

// didYouMean returns ` (did you mean 'x'?)` for the name in known closest
// to name, or "" when none is close.
func didYouMean(name string, known []string) string {
	if best := closest(name, known); best != "" {
		return " (did you mean " + quoteName(best) + "?)"
	}
	return ""
}

// closest is the name of known nearest name, "" when none is near.
func closest(name string, known []string) string {
	lower := strings.ToLower(name)
	limit := min(3, max(1, len([]rune(name))/3))
	best, bestD := "", limit+1
	for _, k := range known {
		if k == name {
			continue
		}
		d := editDistance(lower, strings.ToLower(k), bestD)
		if d < bestD || d == bestD && best != "" && k < best {
			best, bestD = k, d
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

// editDistance is the edit distance of a and b in runes, a swap of two
// neighbours counting as one edit (cuont, lgos), or a value above bound
// once it is certain to exceed bound.
func editDistance(a, b string, bound int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > bound || -d > bound {
		return bound + 1
	}
	older := make([]int, len(rb)+1) // row i-2, for swaps
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], older[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > bound {
			return bound + 1
		}
		older, prev, cur = prev, cur, older
	}
	return prev[len(rb)]
}

// functionNames are the scalar functions' names, for didYouMean.
func functionNames() []string {
	var out []string
	for _, f := range fn.All() {
		out = append(out, f.Name)
	}
	return out
}

// aggregationNames are the aggregations' names, for didYouMean.
func aggregationNames() []string {
	var out []string
	for _, s := range agg.All() {
		out = append(out, s.Name)
	}
	return out
}
