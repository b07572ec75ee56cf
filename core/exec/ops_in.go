package exec

import (
	"strings"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// inExpr is the evaluator of x op (list...): a set built once when the
// list is all constants, else a test row by row.
func inExpr(node *plan.Expr, sp srcpos.Span, op string, x *Expr, list []*Expr) *Expr {
	var items []any
	allConst := true
	for _, l := range list {
		if l.IsConst() {
			items = flattenInto(items, l.ConstValue())
		} else {
			allConst = false
		}
	}
	out := &Expr{Typ: vector.Bool, Col: -1, Span: sp, Node: node}
	switch {
	case !allConst:
		out.Eval = rowInEval(op, x, list)
	case isHasOp(op):
		pred := hasPred(op, items)
		out.Eval = func(xc *Ctx, b *Batch) (*vector.Vector, error) {
			v, err := x.Run(xc, b)
			if err != nil {
				return nil, err
			}
			return stringPredVectors(func(t, _ string) bool { return pred(t) }, false, v, vector.NewConst(vector.String, "", b.N), b.N), nil
		}
	default:
		neg := strings.HasPrefix(op, "!")
		set := newValueSet(items, x.Typ, strings.HasSuffix(op, "~"))
		out.Eval = func(xc *Ctx, b *Batch) (*vector.Vector, error) {
			v, err := x.Run(xc, b)
			if err != nil {
				return nil, err
			}
			return set.Match(v, b.N, neg), nil
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
			needles = append(needles, ValueString(it))
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
			s.strs[ValueString(v)] = true
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
		return s.strs[ValueString(x)]
	}
	if f, ok := fn.DynFloat(v); ok {
		return s.nums[f]
	}
	return s.strs[ValueString(v)]
}

// Match tests every row; over a dictionary column once per distinct value.
// A null never matches, so !in keeps it.
func (s *valueSet) Match(v *vector.Vector, n int, neg bool) *vector.Vector {
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

// notExpr is the evaluator of not(x).
func notExpr(node *plan.Expr, sp srcpos.Span, x *Expr) *Expr {
	e := &Expr{Typ: vector.Bool, Col: -1, Span: sp, Node: node}
	e.Eval = func(xc *Ctx, b *Batch) (*vector.Vector, error) {
		v, err := x.Run(xc, b)
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
