package difftest

import (
	"context"
	"slices"
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
