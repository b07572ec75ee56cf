package core

import (
	"strings"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// in compiles in, !in, in~, !in~ and has_any / has_any_cs / has_all. A
// dynamic array in the list is flattened into it, nested arrays too (x in
// (dynamic([1, [2, 3]]), 4) tests 1, 2, 3 and 4). A list that is all
// constants is a set built once; one that reads columns (x in (tags),
// with tags an array per row) is tested row by row (ops_in_rows.go).
func (c *compiler) inList(e *parser.InExpr) (*expr, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	list := make([]*expr, len(e.List))
	allConst := true
	for i, le := range e.List {
		if list[i], err = c.compile(le); err != nil {
			return nil, err
		}
		allConst = allConst && list[i].isConst()
	}
	node := nodeOf(plan.KIn, vector.Bool, e.Op, e.Sp, append([]*expr{x}, list...)...)
	out := inExpr(node, e.Sp, e.Op, x, list)
	if x.isConst() && allConst {
		return fold(c.x, out)
	}
	return out, nil
}

// inExpr is the evaluator of x op (list...): a set built once when the
// list is all constants, else a test row by row.
func inExpr(node *plan.Expr, sp srcpos.Span, op string, x *expr, list []*expr) *expr {
	var items []any
	allConst := true
	for _, l := range list {
		if l.isConst() {
			items = flattenInto(items, l.constValue())
		} else {
			allConst = false
		}
	}
	out := &expr{typ: vector.Bool, col: -1, span: sp, node: node}
	switch {
	case !allConst:
		out.eval = rowInEval(op, x, list)
	case isHasOp(op):
		pred := hasPred(op, items)
		out.eval = func(xc *execCtx, b *batch) (*vector.Vector, error) {
			v, err := x.run(xc, b)
			if err != nil {
				return nil, err
			}
			return stringPredVectors(func(t, _ string) bool { return pred(t) }, false, v, vector.NewConst(vector.String, "", b.N), b.N), nil
		}
	default:
		neg := strings.HasPrefix(op, "!")
		set := newValueSet(items, x.typ, strings.HasSuffix(op, "~"))
		out.eval = func(xc *execCtx, b *batch) (*vector.Vector, error) {
			v, err := x.run(xc, b)
			if err != nil {
				return nil, err
			}
			return set.match(v, b.N, neg), nil
		}
	}
	return out
}

// flattenInto appends v to items, spreading arrays at any depth.
func flattenInto(items []any, v any) []any {
	arr, ok := v.([]any)
	if !ok {
		return append(items, v)
	}
	for _, e := range arr {
		items = flattenInto(items, e)
	}
	return items
}

func isHasOp(op string) bool { return op == "has_any" || op == "has_any_cs" || op == "has_all" }

// hasPred is the term test of has_any, has_any_cs and has_all over the
// list's non-null items.
func hasPred(op string, items []any) func(text string) bool {
	needles := make([]string, 0, len(items))
	for _, it := range items {
		if it != nil {
			needles = append(needles, valueString(it))
		}
	}
	cs, all := op == "has_any_cs", op == "has_all"
	return func(t string) bool {
		for _, nd := range needles {
			if hasTerm(t, nd, cs, termWhole) != all {
				return !all
			}
		}
		return all
	}
}

// valueSet is the constant list of an in operator, keyed for fast lookups.
type valueSet struct {
	strs   map[string]bool
	nums   map[float64]bool
	any    []any
	fold   bool
	hasNum bool
}

func newValueSet(items []any, t vector.Type, fold bool) *valueSet {
	s := &valueSet{strs: map[string]bool{}, nums: map[float64]bool{}, fold: fold}
	s.fill(items, t)
	return s
}

// fill makes s the set of items, emptying it first, so a list that
// changes from row to row reuses one set's maps.
func (s *valueSet) fill(items []any, t vector.Type) {
	clear(s.strs)
	clear(s.nums)
	s.any, s.hasNum = items, false
	for _, it := range items {
		switch v := it.(type) {
		case string:
			if s.fold {
				v = strings.ToLower(v)
			}
			s.strs[v] = true
			if f, ok := fn.DynFloat(v); ok && t != vector.String {
				s.nums[f] = true
			}
		case nil:
		default:
			if f, ok := fn.DynFloat(v); ok {
				s.nums[f] = true
				s.hasNum = true
			}
			s.strs[valueString(v)] = true
		}
	}
}

// contains reports whether one boxed value is in the set.
func (s *valueSet) contains(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		if s.fold {
			x = strings.ToLower(x)
		}
		if s.strs[x] {
			return true
		}
		if s.hasNum {
			if f, ok := fn.DynFloat(x); ok {
				return s.nums[f]
			}
		}
		return false
	case bool:
		return s.strs[valueString(x)]
	}
	if f, ok := fn.DynFloat(v); ok {
		return s.nums[f]
	}
	return s.strs[valueString(v)]
}

// match tests every row; over a dictionary column once per distinct value.
// A null never matches, so !in keeps it.
func (s *valueSet) match(v *vector.Vector, n int, neg bool) *vector.Vector {
	out := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n)}
	if v.Codes != nil && !v.Const {
		res := make([]bool, len(v.Dict))
		for i, d := range v.Dict {
			res[i] = s.contains(d) != neg
		}
		for i, code := range v.Codes[:n] {
			out.Bools[i] = res[code]
		}
	} else if v.Type == vector.Int && !v.Const {
		for i, x := range v.Ints[:n] {
			out.Bools[i] = s.nums[float64(x)] != neg
		}
	} else {
		for i := 0; i < n; i++ {
			out.Bools[i] = s.contains(v.Value(i)) != neg
		}
	}
	if v.HasNulls() {
		for i := 0; i < n; i++ {
			if v.IsNull(i) {
				out.Bools[i] = neg
			}
		}
	}
	return out
}

// between compiles `x between (lo .. hi)` (inclusive) as lo <= x and x <= hi.
func (c *compiler) between(e *parser.BetweenExpr) (*expr, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	lo, err := c.compile(e.Lo)
	if err != nil {
		return nil, err
	}
	hi, err := c.compile(e.Hi)
	if err != nil {
		return nil, err
	}
	// `x between (dt .. timespan)` means [dt, dt+timespan].
	if x.typ == vector.DateTime && lo.typ == vector.DateTime && hi.typ == vector.TimeSpan {
		hi, err = c.arith(&parser.BinaryExpr{Sp: e.Sp, Op: "+"}, lo, hi)
		if err != nil {
			return nil, err
		}
	}
	ge, err := c.comparison(&parser.BinaryExpr{Sp: e.Sp, Op: ">="}, x, lo)
	if err != nil {
		return nil, err
	}
	le, err := c.comparison(&parser.BinaryExpr{Sp: e.Sp, Op: "<="}, x, hi)
	if err != nil {
		return nil, err
	}
	both, err := c.logical(&parser.BinaryExpr{Sp: e.Sp, Op: "and"}, ge, le)
	if err != nil || !e.Not {
		return both, err
	}
	return c.not(e.Sp, both)
}

// not negates a bool expression (null stays null).
func (c *compiler) not(sp srcpos.Span, x *expr) (*expr, error) {
	e := notExpr(nodeOf(plan.KNot, vector.Bool, "", sp, x), sp, x)
	if x.isConst() {
		return fold(c.x, e)
	}
	return e, nil
}

// notExpr is the evaluator of not(x).
func notExpr(node *plan.Expr, sp srcpos.Span, x *expr) *expr {
	e := &expr{typ: vector.Bool, col: -1, span: sp, node: node}
	e.eval = func(xc *execCtx, b *batch) (*vector.Vector, error) {
		v, err := x.run(xc, b)
		if err != nil {
			return nil, err
		}
		v = castVector(v, vector.Bool).Materialize()
		out := &vector.Vector{Type: vector.Bool, Len: b.N, Bools: make([]bool, b.N), Valid: v.Valid}
		for i := 0; i < b.N; i++ {
			out.Bools[i] = !v.Bools[i]
		}
		return out, nil
	}
	return e
}
