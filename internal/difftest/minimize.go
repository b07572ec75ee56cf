package difftest

import (
	"context"
	"slices"
	"strings"
)

// maxTries bounds the runs the minimizer spends on one case.
const maxTries = 300

// minimize shrinks q while mode m still disagrees with the reference:
// it drops stages and replaces predicates by their parts, greedily,
// until no smaller query disagrees. It returns the smallest query and
// its difference.
func (r *Rig) minimize(ctx context.Context, q Query, m Mode) (Query, string) {
	differs := func(c Query) string {
		return Diff(r.Answer(ctx, c.String(), Ref), r.Answer(ctx, c.String(), m), c.Order())
	}
	best, diff := q, differs(q)
	return shrink(best, diff, differs)
}

// shrink is the greedy loop of minimize, over any test that describes
// a failure ("" when the candidate passes).
func shrink(best Query, diff string, fails func(Query) string) (Query, string) {
	tries := 0
	for improved := true; improved && tries < maxTries; {
		improved = false
		for _, c := range candidates(best) {
			if tries++; tries > maxTries {
				break
			}
			if d := fails(c); d != "" {
				best, diff, improved = c, d, true
				break
			}
		}
	}
	return best, diff
}

// candidates are the queries one step smaller than q.
func candidates(q Query) []Query {
	var out []Query
	for i := range q.Stages {
		c := Query{Src: q.Src, Stages: slices.Delete(slices.Clone(q.Stages), i, i+1)}
		out = append(out, c)
	}
	for i, s := range q.Stages {
		if s.Keep != nil {
			continue // a projection's order tracking names its columns
		}
		for _, text := range shorterLists(s.Text) {
			c := Query{Src: q.Src, Stages: slices.Clone(q.Stages)}
			c.Stages[i].Text = text
			out = append(out, c)
		}
	}
	for i, s := range q.Stages {
		if s.Pred == nil {
			continue
		}
		for _, sub := range s.Pred.subs() {
			c := Query{Src: q.Src, Stages: slices.Clone(q.Stages)}
			c.Stages[i].Pred = sub
			out = append(out, c)
		}
	}
	return out
}

// minimizeTLP shrinks a failing partition check: its base's stages and
// its predicate.
func (r *Rig) minimizeTLP(ctx context.Context, t TLP) (TLP, string) {
	// The predicate rides as a last where stage so that shrink can cut it.
	q := Query{Src: t.Base.Src, Stages: append(slices.Clone(t.Base.Stages), Stage{Text: "%P", Pred: t.Pred})}
	fails := func(c Query) string {
		n := len(c.Stages) - 1
		if n < 0 || c.Stages[n].Text != "%P" {
			return "" // the predicate itself must stay
		}
		d, _ := r.Check(ctx, TLP{Kind: t.Kind, Base: Query{Src: c.Src, Stages: c.Stages[:n]}, Pred: c.Stages[n].Pred, Agg: t.Agg})
		return d
	}
	d0, _ := r.Check(ctx, t)
	best, d := shrink(q, d0, fails)
	n := len(best.Stages) - 1
	return TLP{Kind: t.Kind, Base: Query{Src: best.Src, Stages: best.Stages[:n]}, Pred: best.Stages[n].Pred, Agg: t.Agg}, d
}

// shorterLists are text with one item fewer in one of its lists: the
// aggregations or the keys of a summarize, the columns of an extend,
// project or distinct.
func shorterLists(text string) []string {
	op, rest, ok := strings.Cut(text, " ")
	if !ok || !slices.Contains([]string{"summarize", "extend", "project", "project-away", "distinct"}, op) || strings.Contains(text, "%P") {
		return nil
	}
	parts := []string{rest}
	sep := ""
	if op == "summarize" {
		if aggs, keys, found := cutTop(rest, " by "); found {
			parts, sep = []string{aggs, keys}, " by "
		}
	}
	var out []string
	for p, part := range parts {
		items := splitTop(part)
		for i := range items {
			if len(items) == 1 {
				if p == 1 { // a summarize without keys
					out = append(out, op+" "+parts[0])
				}
				continue
			}
			shorter := slices.Clone(parts)
			shorter[p] = strings.Join(slices.Delete(slices.Clone(items), i, i+1), ", ")
			out = append(out, op+" "+strings.Join(shorter, sep))
		}
	}
	return out
}

// splitTop splits s at the commas outside parentheses and quotes.
func splitTop(s string) []string {
	var out []string
	depth, start, quoted := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// cutTop is strings.Cut at the last sep outside parentheses and quotes.
func cutTop(s, sep string) (before, after string, found bool) {
	depth, quoted, at := 0, false, -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			at = i
		}
	}
	if at < 0 {
		return s, "", false
	}
	return s[:at], s[at+len(sep):], true
}
