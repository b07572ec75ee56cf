package core

import (
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// boundsOf extracts [lo, hi) bounds on _time from a where predicate's
// conjuncts (_time > c, _time <= c, _time between (a .. b), ...). exact is
// true when the predicate is nothing but such bounds, so the scan's own
// time filter replaces it. c resolves the constants.
func boundsOf(c *compiler, pred parser.Expr) (lo, hi *int64, exact bool) {
	exact = true
	tighten := func(l, h *int64) {
		if l != nil && (lo == nil || *l > *lo) {
			lo = l
		}
		if h != nil && (hi == nil || *h < *hi) {
			hi = h
		}
	}
	for _, cj := range conjuncts(pred) {
		l, h, ok := boundOf(c, cj)
		if !ok {
			exact = false
			continue
		}
		tighten(l, h)
	}
	return lo, hi, exact
}

// boundOf reads one conjunct as a bound on _time.
func boundOf(c *compiler, e parser.Expr) (lo, hi *int64, ok bool) {
	isTime := func(x parser.Expr) bool {
		id, ok := x.(*parser.Ident)
		return ok && id.Name == store.TimeField
	}
	constTime := func(x parser.Expr) (int64, bool) {
		ce, err := c.compile(x)
		if err != nil || !ce.isConst() || ce.typ != vector.DateTime || ce.cnst.IsNull(0) {
			return 0, false
		}
		return ce.cnst.Int(0), true
	}
	p := func(v int64) *int64 { return &v }
	switch e := e.(type) {
	case *parser.BetweenExpr:
		if e.Not || !isTime(e.X) {
			return nil, nil, false
		}
		a, ok1 := constTime(e.Lo)
		b, ok2 := constTime(e.Hi)
		if !ok1 || !ok2 {
			return nil, nil, false
		}
		return p(a), p(b + 1), true
	case *parser.BinaryExpr:
		op, l, r := e.Op, e.L, e.R
		if !isTime(l) {
			l, r = r, l
			op = flipCmp(op)
		}
		if !isTime(l) {
			return nil, nil, false
		}
		v, ok := constTime(r)
		if !ok {
			return nil, nil, false
		}
		switch op {
		case ">":
			return p(v + 1), nil, true
		case ">=":
			return p(v), nil, true
		case "<":
			return nil, p(v), true
		case "<=":
			return nil, p(v + 1), true
		case "==":
			return p(v), p(v + 1), true
		}
	}
	return nil, nil, false
}

// flipCmp mirrors a comparison so the column can be on the left.
func flipCmp(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}
