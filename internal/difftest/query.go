package difftest

import (
	"strings"
)

// Query is a generated query: a source and stages, kept apart so that
// the minimizer can drop stages and shrink predicates.
type Query struct {
	Src    string
	Stages []Stage
}

// Stage is one operator. Text holds %P where its predicate goes.
type Stage struct {
	Text  string
	Pred  *Expr
	Order byte     // 'k': keeps the order; 'r': resets it; 's': sorts by Keys
	Keys  []string // output columns a sorting stage orders by
	Limit bool     // a take or top: cuts an ordered result
	// Keep maps the columns a project keeps to their output names.
	Keep map[string]string
}

// String is the stage as APL, its predicate in place.
func (s Stage) String() string {
	if s.Pred == nil {
		return s.Text
	}
	return strings.Replace(s.Text, "%P", s.Pred.String(), 1)
}

// String is the query as APL.
func (q Query) String() string {
	var b strings.Builder
	b.WriteString(q.Src)
	for _, s := range q.Stages {
		b.WriteString(" | ")
		b.WriteString(s.String())
	}
	return b.String()
}

// Order is how the query's answer is ordered, from its stages. Rows cut
// by a take or top among tied keys are any of the tied rows: once the
// keys are dropped or the rows aggregated, the answer is Opaque.
func (q Query) Order() Order {
	var o Order
	for _, s := range q.Stages {
		if o.Opaque {
			break
		}
		switch {
		case (s.Order == 'r' || s.Order == 's') && o.Limited:
			o = Order{Opaque: true}
		case s.Order == 'r':
			o = Order{}
		case s.Order == 's':
			o = Order{Keys: s.Keys}
		case s.Keep != nil && len(o.Keys) > 0:
			var keys []string
			for _, k := range o.Keys {
				if out, ok := s.Keep[k]; ok {
					keys = append(keys, out)
				}
			}
			switch {
			case len(keys) == len(o.Keys):
				o.Keys = keys
			case o.Limited:
				o = Order{Opaque: true}
			default:
				o = Order{}
			}
		}
		switch {
		case s.Limit && len(o.Keys) > 0:
			o.Limited = true
		case s.Limit: // a take of unordered rows keeps any of them
			o = Order{Opaque: true}
		}
	}
	return o
}

// Expr is a predicate: a leaf, or and/or/not of predicates.
type Expr struct {
	Op   string // "and", "or", "not"; "" for a leaf
	Kids []*Expr
	Leaf string
}

// String is the predicate as APL, parenthesized.
func (e *Expr) String() string {
	switch e.Op {
	case "and", "or":
		return "(" + e.Kids[0].String() + " " + e.Op + " " + e.Kids[1].String() + ")"
	case "not":
		return "not(" + e.Kids[0].String() + ")"
	}
	return e.Leaf
}

// subs lists e's proper subexpressions, for the minimizer.
func (e *Expr) subs() []*Expr {
	var out []*Expr
	for _, k := range e.Kids {
		out = append(out, k)
		out = append(out, k.subs()...)
	}
	return out
}
