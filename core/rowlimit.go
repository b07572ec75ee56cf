package core

import (
	"fmt"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Row limits of event results, as Axiom's pagination docs state them: a
// query returns at most the lowest of its own limit (take, limit, top,
// sort | take), the request's (Request.DefaultLimit: the API's
// defaultLimit) and the server's maximum (Request.MaxRows). Only when
// neither the query nor the request sets a limit does DefaultRowLimit
// apply, and then an answer it shortened says so (default_limit_warning).
// Results of an aggregation (summarize, count, distinct, make-series,
// getschema) are not events and keep every row.

// DefaultRowLimit caps event results that neither the query nor the
// request limits.
const DefaultRowLimit = 1000

// cutReason says which limit a rowCut applies.
type cutReason int

const (
	cutDefault cutReason = iota + 1 // DefaultRowLimit: the answer warns
	cutRequest                      // the request's limit: asked for
	cutMax                          // the server's maximum: the answer is partial
)

// rowCut is a limit the planner added after the query's own stages.
type rowCut struct {
	n   int64
	why cutReason
}

// finalize adds what the service does to results that do not fix their
// own order and size: raw events come newest first, and no more of them
// than the limits above allow. Nested pipelines (top false: let tables,
// parenthesized sources) are only ordered. The run asks for one row over
// the limit, so that trimRows knows whether it cut anything.
func (p *planner) finalize(pl *pipe, top bool) *pipe {
	if !isEvents(pl) {
		return pl
	}
	ordered := isOrdered(pl)
	ti := pl.out.Index(store.TimeField)
	byTime := !ordered && ti >= 0 && pl.out[ti].Type == vector.DateTime && pl.scans()
	var cut rowCut
	if top {
		bound, limited, exact := queryBound(pl)
		cut = p.rowLimit(limited)
		if cut.n > 0 && exact && bound <= cut.n {
			cut = rowCut{} // the query's own limit is lower: nothing to cut
		}
		p.cut = cut
	}
	n := cut.n + 1
	last := len(pl.Stages) - 1
	switch {
	case byTime && cut.n > 0:
		pl.Stages = append(pl.Stages, plan.Stage{Kind: plan.STop, N: n, Order: []plan.SortKey{timeKey(pl.out, ti, true)}})
	case byTime:
		pl.Stages = append(pl.Stages, plan.Stage{Kind: plan.SSort, Order: []plan.SortKey{timeKey(pl.out, ti, true)}})
	case cut.n == 0:
	case last >= 0 && pl.Stages[last].Kind == plan.SSort:
		// A sort that ends the query becomes a top of the same keys, so
		// the answer still reports its order.
		pl.Stages[last] = plan.Stage{Kind: plan.STop, N: n, Order: pl.Stages[last].Order}
	case last >= 0 && pl.Stages[last].Kind == plan.STop:
		pl.Stages[last].N = min(pl.Stages[last].N, n)
	default:
		pl.Stages = append(pl.Stages, plan.Stage{Kind: plan.STake, N: n})
	}
	return pl
}

// rowLimit is the limit of a top-level event result: the request's when
// it sets one, else the default unless the query sets a limit of its
// own, and never over the server's maximum.
func (p *planner) rowLimit(limited bool) rowCut {
	var c rowCut
	switch r := p.req.DefaultLimit; {
	case r > 0:
		c = rowCut{int64(r), cutRequest}
	case r == 0 && !limited:
		c = rowCut{DefaultRowLimit, cutDefault}
	}
	if m := p.req.MaxRows; m > 0 && (c.n == 0 || int64(m) < c.n) {
		c = rowCut{int64(m), cutMax}
	}
	return c
}

// queryBound reports whether the query sets a limit of its own (a take,
// limit or top), and the fewest rows those let through; exact is false
// when a later stage can add rows (mv-expand, join, union), so the
// answer may still be longer.
func queryBound(pl *pipe) (bound int64, limited, exact bool) {
	for _, st := range pl.Stages {
		switch st.Kind {
		case plan.STake, plan.STop:
			if !exact || st.N < bound {
				bound = st.N
			}
			limited, exact = true, true
		case plan.SMvExpand, plan.SJoin, plan.SUnion:
			exact = false
		}
	}
	return bound, limited, exact
}

// isEvents reports whether the pipeline's rows are events rather than
// the output of an operator that changes their shape.
func isEvents(pl *pipe) bool {
	for _, st := range pl.Stages {
		switch st.Kind {
		case plan.SSummarize, plan.SCount, plan.SDistinct, plan.SGetSchema, plan.SSeries:
			return false
		}
	}
	return true
}

// isOrdered reports whether the query fixes the order of its rows itself.
func isOrdered(pl *pipe) bool {
	for _, st := range pl.Stages {
		if st.Kind == plan.SSort || st.Kind == plan.STop {
			return true
		}
	}
	return false
}

// trimRows drops the row the run fetched past the planner's limit and
// reports whether there was one: the limit then left rows out.
func (p *planner) trimRows(b *exec.Batch) bool {
	if p.cut.n == 0 || int64(b.N) <= p.cut.n {
		return false
	}
	n := int(p.cut.n)
	for i, c := range b.Cols {
		if c != nil {
			b.Cols[i] = c.Slice(0, n)
		}
	}
	b.N = n
	return true
}

// noteCut says what a limit that left rows out did to the answer.
// Both codes are among those Axiom's clients decode (axiom-go's
// querylegacy.MessageCode accepts default_limit_warning and any apl_
// code).
func (p *planner) noteCut(o *output.Output) {
	switch p.cut.why {
	case cutDefault:
		o.Messages = append(o.Messages, output.Message{Priority: "warn", Count: 1, Code: "default_limit_warning",
			Msg: fmt.Sprintf("A default limit of %d was applied", p.cut.n)})
	case cutMax:
		o.Partial = true
		o.Messages = append(o.Messages, output.Message{Priority: "warn", Count: 1, Code: "apl_maxrowlimitapplied_1",
			Msg: fmt.Sprintf("the result was cut at the server's maximum of %d rows: narrow the query or page with the cursor", p.cut.n)})
	}
}
