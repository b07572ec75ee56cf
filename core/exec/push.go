package exec

import (
	"math"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// What a where, or a conditional aggregation, hands to faster machinery
// is read from the predicate's plan node, not its text: the node is
// resolved and folded, and it is all a node running a fragment has. So
// the planner and a fragment's builder derive the same time bounds,
// statistics pruning, term filters and kernels from the same data.

// nodeConjuncts splits a predicate on top-level `and`.
func nodeConjuncts(n *plan.Expr) []*plan.Expr {
	if n.Kind == plan.KLogic && n.Op == "and" {
		return append(nodeConjuncts(n.Args[0]), nodeConjuncts(n.Args[1])...)
	}
	return []*plan.Expr{n}
}

// colConst reads a comparison's operands as column and non-null
// constant, either way round; op is then the comparison with the column
// on the left. ok is false for anything else.
func colConst(n *plan.Expr) (col, k *plan.Expr, op string, ok bool) {
	if len(n.Args) != 2 {
		return nil, nil, "", false
	}
	l, r, op := n.Args[0], n.Args[1], n.Op
	if l.Kind == plan.KConst {
		l, r, op = r, l, FlipCmp(op)
	}
	if l.Kind != plan.KCol || r.Kind != plan.KConst || r.Value == nil {
		return nil, nil, "", false
	}
	return l, r, op, true
}

// pushOf is what a where with predicate pred may hand a scan over in.
func pushOf(in Schema, pred *plan.Expr) scanPush {
	var p scanPush
	if pred == nil {
		return p
	}
	p.lo, p.hi, p.exact = nodeBounds(pred)
	for _, c := range nodeConjuncts(pred) {
		if m := nodeMay(in, c); m != nil {
			p.Prune = append(p.Prune, func(pt store.Part) bool { return !m(pt) })
		}
		if hasTermNode(c, in) {
			c := c
			p.Granules = append(p.Granules, func(pt store.Part) []bool {
				ng := (pt.Rows() + TermGranuleRows - 1) / TermGranuleRows
				return nodeGranules(c, in, pt, ng)
			})
		}
	}
	return p
}

// nodeBounds extracts [lo, hi) bounds on _time from the conjuncts of
// pred (_time > c, _time <= c, between, ...); exact is true when the
// predicate is nothing but such bounds, so the scan's own time filter
// replaces it.
func nodeBounds(pred *plan.Expr) (lo, hi *int64, exact bool) {
	exact = true
	for _, cj := range nodeConjuncts(pred) {
		l, h, ok := nodeBound(cj)
		if !ok {
			exact = false
			continue
		}
		if l != nil && (lo == nil || *l > *lo) {
			lo = l
		}
		if h != nil && (hi == nil || *h < *hi) {
			hi = h
		}
	}
	return lo, hi, exact
}

// nodeBound reads one conjunct as a bound on _time.
func nodeBound(n *plan.Expr) (lo, hi *int64, ok bool) {
	if n.Kind != plan.KCmp {
		return nil, nil, false
	}
	col, k, op, ok := colConst(n)
	if !ok || col.Name != store.TimeField || k.Type != vector.DateTime {
		return nil, nil, false
	}
	v := vector.NewConst(vector.DateTime, k.ConstValue(), 1).Int(0)
	p := func(v int64) *int64 { return &v }
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
	return nil, nil, false
}

// nodeMay is the statistics test of a conjunct (op_statprune.go), or nil
// when it is not made of column-against-constant comparisons.
func nodeMay(s Schema, n *plan.Expr) mayMatch {
	switch n.Kind {
	case plan.KLogic:
		l, r := nodeMay(s, n.Args[0]), nodeMay(s, n.Args[1])
		if n.Op == "or" {
			if l == nil || r == nil {
				return nil
			}
			return func(p store.Part) bool { return l(p) || r(p) }
		}
		switch {
		case l == nil:
			return r
		case r == nil:
			return l
		}
		return func(p store.Part) bool { return l(p) && r(p) }
	case plan.KCmp:
		col, k, op, ok := colConst(n)
		if !ok || op == "!=" {
			return nil
		}
		return colMay(s, col, op, k.ConstValue())
	case plan.KIn:
		if n.Op != "in" || len(n.Args) < 2 || n.Args[0].Kind != plan.KCol {
			return nil
		}
		var eqs []mayMatch
		for _, item := range n.Args[1:] {
			if item.Kind != plan.KConst || item.Value == nil {
				return nil
			}
			m := colMay(s, n.Args[0], "==", item.ConstValue())
			if m == nil {
				return nil
			}
			eqs = append(eqs, m)
		}
		return func(p store.Part) bool {
			for _, m := range eqs {
				if m(p) {
					return true
				}
			}
			return false
		}
	}
	return nil
}

// colMay tests `col op want` against a part's statistics.
func colMay(s Schema, col *plan.Expr, op string, want any) mayMatch {
	if col.Index >= len(s) || s[col.Index].Name != col.Name {
		return nil
	}
	return cmpMayValue(col.Name, s[col.Index].Type, op, want)
}

// hasTermNode reports whether a conjunct holds a test of a string
// column against string constants that term filters decide
// (op_termprune.go: termTestOf).
func hasTermNode(n *plan.Expr, s Schema) bool {
	if n.Kind == plan.KLogic {
		return hasTermNode(n.Args[0], s) || hasTermNode(n.Args[1], s)
	}
	return termTestOf(n, s) != nil
}

// nodeGranules is, per granule of p, false only when no row of the
// granule can satisfy n (op_termprune.go).
func nodeGranules(n *plan.Expr, s Schema, p store.Part, ng int) []bool {
	if n.Kind == plan.KLogic {
		l, r := nodeGranules(n.Args[0], s, p, ng), nodeGranules(n.Args[1], s, p, ng)
		for i := range l {
			if n.Op == "and" {
				l[i] = l[i] && r[i]
			} else {
				l[i] = l[i] || r[i]
			}
		}
		return l
	}
	if t := termTestOf(n, s); t != nil {
		return t.granules(p, ng)
	}
	return allGranules(ng, true)
}

// fastFilterOf recognises `column op constant` over an int-like or real
// column (op_where_fast.go); nil when the predicate is anything else.
func fastFilterOf(in Schema, n *plan.Expr) *fastFilter {
	if n == nil || n.Kind != plan.KCmp {
		return nil
	}
	col, k, op, ok := colConst(n)
	if !ok || col.Index >= len(in) {
		return nil
	}
	ct := in[col.Index].Type
	f := &fastFilter{col: col.Index, op: op}
	cv := vector.NewConst(k.Type, k.ConstValue(), 1)
	switch {
	case ct.IsInt64Backed() && k.Type == ct:
		f.selInt, f.ki, f.isInt = vector.SelConstInt64[op], cv.Int(0), true
	case ct == vector.Int && k.Type == vector.Float:
		// An int column against a real constant compares as reals; keep
		// it simple and let the general path do it.
		return nil
	case ct == vector.Float && (k.Type == vector.Float || k.Type == vector.Int):
		v, _ := fn.DynFloat(cv.Value(0))
		f.selFloat, f.kf = vector.SelConstFloat64[op], v
	default:
		return nil
	}
	return f
}

// condFilterOf recognises the predicates a conditional aggregation runs
// as a filter (op_summarize_cond.go): a bool column, not() of one, one
// compared with a bool constant, or a fast filter's comparison.
func condFilterOf(in Schema, n *plan.Expr) *condFilter {
	if n == nil {
		return nil
	}
	boolCol := func(e *plan.Expr) int {
		if e.Kind != plan.KCol || e.Index >= len(in) || in[e.Index].Type != vector.Bool {
			return -1
		}
		return e.Index
	}
	switch n.Kind {
	case plan.KCol:
		if col := boolCol(n); col >= 0 {
			return &condFilter{col: col, kind: vector.Bool, want: true}
		}
		return nil
	case plan.KCall:
		if n.Name == "not" && len(n.Args) == 1 {
			if col := boolCol(n.Args[0]); col >= 0 {
				return &condFilter{col: col, kind: vector.Bool, want: false}
			}
		}
		return nil
	case plan.KCmp:
		if col, k, op, ok := colConst(n); ok && (op == "==" || op == "!=") && boolCol(col) >= 0 {
			if k.Type != vector.Bool {
				return nil
			}
			want, _ := k.ConstValue().(bool)
			return &condFilter{col: col.Index, kind: vector.Bool, want: want == (op == "=="), nullTrue: op == "!="}
		}
	}
	ff := fastFilterOf(in, n)
	if ff == nil {
		return nil
	}
	f := &condFilter{col: ff.col, neg: ff.op == "!=", nullTrue: ff.op == "!="}
	if ff.isInt {
		f.kind = vector.Int
		f.lo, f.hi, f.empty = intRange(ff.op, ff.ki)
		return f
	}
	if math.IsNaN(ff.kf) {
		return nil
	}
	f.kind = vector.Float
	f.flo, f.fhi, f.empty = floatRange(ff.op, ff.kf)
	return f
}

// FlipCmp mirrors a comparison so the column can be on the left.
func FlipCmp(op string) string {
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

// TimeBounds is what a where with predicate pred tells a scan of its
// _time: bounds [lo, hi), and whether they are the whole predicate.
func TimeBounds(pred *plan.Expr) (lo, hi *int64, exact bool) { return nodeBounds(pred) }
