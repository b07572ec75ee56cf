package core

import (
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planJoin(in exec.Schema, op *parser.JoinOp) (*step, error) {
	kind, ok := joinKinds[strings.ToLower(op.Kind)]
	if !ok {
		return nil, semErr(op, "unknown join kind %q", op.Kind)
	}
	return p.newJoin(in, op, kind, op.Right, op.On, false)
}

// joinKinds are the join kinds by every name APL accepts, to the
// canonical names the plan uses (FORMAT.md). inner is APL's default,
// unlike KQL's innerunique.
var joinKinds = map[string]string{
	"": "inner", "inner": "inner", "innerunique": "innerunique",
	"leftouter": "leftouter", "rightouter": "rightouter", "fullouter": "fullouter",
	"leftsemi": "leftsemi", "rightsemi": "rightsemi",
	"leftanti": "leftanti", "leftantisemi": "leftanti", "anti": "leftanti",
	"rightanti": "rightanti", "rightantisemi": "rightanti",
}

// joinKey is one equality condition: a left and a right expression,
// and the right column the key reads as is (-1: none).
type joinKey struct {
	l, r     *typed
	rightCol int
}

// newJoin plans the right side and the conditions and derives the output
// schema; kind is a canonical name.
func (p *planner) newJoin(in exec.Schema, op parser.Node, kind string, right *parser.Pipeline, on []parser.Expr, lookup bool) (*step, error) {
	if len(on) == 0 {
		return nil, semErr(op, "join needs at least one condition: on key, or on $left.a == $right.b")
	}
	rpl, err := p.planPipeline(right)
	if err != nil {
		return nil, err
	}
	var keys []joinKey
	var rightASTs []parser.Expr // the right operands, for narrowRight
	for _, cond := range on {
		k, rx, err := p.joinCondition(in, rpl.out, cond)
		if err != nil {
			return nil, err
		}
		rightASTs = append(rightASTs, rx)
		keys = append(keys, k)
	}
	var sch exec.Schema
	pj := &plan.Join{Kind: kind, RightCols: []int{}}
	for _, k := range keys {
		pj.Left, pj.Right = append(pj.Left, k.l.Node), append(pj.Right, k.r.Node)
	}
	if kind != "rightsemi" && kind != "rightanti" {
		sch = append(sch, in...)
	}
	if kind != "leftsemi" && kind != "leftanti" {
		drop := map[int]bool{}
		if lookup {
			for _, k := range keys {
				if k.rightCol >= 0 {
					drop[k.rightCol] = true
				}
			}
		}
		for i, c := range rpl.out {
			if drop[i] {
				continue
			}
			if sch.Index(c.Name) >= 0 {
				c.Name = uniqueName(sch, c.Name)
			}
			sch = append(sch, c)
			pj.RightCols = append(pj.RightCols, i)
		}
	}
	narrowRight(rpl, pj.RightCols, rightASTs)
	return one(plan.Stage{Kind: plan.SJoin, Schema: fields(sch), Legs: []plan.Leg{{Pipe: rpl.Pipeline}}, Join: pj}, sch), nil
}

// joinCondition compiles `key` (the same column on both sides) or
// `l == r`, where l reads the left side and r the right one, and returns
// the right operand's AST for narrowRight. $left.x and
// $right.x name a side explicitly; without them the left operand of ==
// belongs to the left side, as Axiom documents.
func (p *planner) joinCondition(left, right exec.Schema, cond parser.Expr) (joinKey, parser.Expr, error) {
	var lx, rx parser.Expr
	switch c := cond.(type) {
	case *parser.Ident:
		if left.Index(c.Name) < 0 {
			return joinKey{}, nil, semErr(c, "join key %q is not a field of the left side", c.Name)
		}
		if right.Index(c.Name) < 0 {
			return joinKey{}, nil, semErr(c, "join key %q is not a field of the right side", c.Name)
		}
		lx, rx = c, c
	case *parser.BinaryExpr:
		if c.Op != "==" {
			return joinKey{}, nil, semErr(c, "a join condition must be an equality (==), not %s; separate several conditions with commas", c.Op)
		}
		lx, rx = c.L, c.R
		ls, rs := sideOf(c.L), sideOf(c.R)
		if ls == "both" || rs == "both" {
			return joinKey{}, nil, semErr(c, "each side of a join condition must read one side: $left or $right, not both")
		}
		if ls == "$right" || rs == "$left" {
			lx, rx = rx, lx
			ls, rs = rs, ls
		}
		if ls == rs && ls != "" {
			return joinKey{}, nil, semErr(c, "both sides of the join condition read %s", ls)
		}
	default:
		return joinKey{}, nil, semErr(cond, "a join condition must be a field name or left == right")
	}
	l, err := p.sideExpr(left, "$left", lx)
	if err != nil {
		return joinKey{}, nil, err
	}
	r, err := p.sideExpr(right, "$right", rx)
	if err != nil {
		return joinKey{}, nil, err
	}
	rcol := r.Col // before a cast hides it: lookup drops this column
	l, r, err = unifyJoinTypes(p.fc, cond, l, r)
	return joinKey{l: l, r: r, rightCol: rcol}, rx, err
}

// unifyJoinTypes makes both key expressions one type: equal types stay,
// long and real compare as real, an all-null side takes the other's type.
// A dynamic side (a field that arrives as 200 and as "200") is read as the
// other side's type, numbers as reals, the way a comparison coerces it.
// Anything else is a planning error, as in Axiom ("the two sides of the
// equality expression must have the same data type").
func unifyJoinTypes(fc *fn.Context, cond parser.Expr, l, r *typed) (*typed, *typed, error) {
	lt, rt, ok := joinTypes(l.Typ, r.Typ)
	if !ok {
		return nil, nil, semErr(cond, "join condition compares %s (left) with %s (right): both sides must have the same type; convert one side, for example with tostring()", l.Typ, r.Typ)
	}
	l, err := castExpr(fc, l, lt)
	if err != nil {
		return nil, nil, err
	}
	r, err = castExpr(fc, r, rt)
	return l, r, err
}

// joinTypes are the types unifyJoinTypes reads the sides as.
func joinTypes(l, r vector.Type) (vector.Type, vector.Type, bool) {
	switch {
	case l == r:
		return l, r, true
	case l.IsNumeric() && r.IsNumeric(),
		l == vector.Dynamic && r.IsNumeric(),
		r == vector.Dynamic && l.IsNumeric():
		return vector.Float, vector.Float, true
	case l == vector.Dynamic:
		return r, r, true
	case r == vector.Dynamic:
		return l, l, true
	case l == vector.Null:
		return r, r, true
	case r == vector.Null:
		return l, l, true
	}
	return l, r, false
}

// sideOf says which $side an expression names: "", "$left", "$right" or
// "both".
func sideOf(e parser.Expr) string {
	found := ""
	parser.Walk(e, func(n parser.Node) bool {
		if id, ok := n.(*parser.Ident); ok && (id.Name == "$left" || id.Name == "$right") {
			if found != "" && found != id.Name {
				found = "both"
			} else if found == "" {
				found = id.Name
			}
		}
		return true
	})
	return found
}

// sideExpr compiles one operand of a condition against one side's schema.
// `$left.geo.city` finds the flattened field geo.city before it tries
// member access into a dynamic field geo.
func (p *planner) sideExpr(s exec.Schema, which string, e parser.Expr) (*typed, error) {
	if name, ok := dottedName(e); ok && strings.HasPrefix(name, which+".") {
		if i := s.Index(name[len(which)+1:]); i >= 0 {
			return colExpr(i, s[i], e.Span()), nil
		}
	}
	if ix, ok := e.(*parser.IndexExpr); ok {
		if id, ok := ix.X.(*parser.Ident); ok && id.Name == which {
			if lit, ok := ix.Index.(*parser.Literal); ok && lit.Kind == parser.LitString {
				name := lit.Value.(string)
				if i := s.Index(name); i >= 0 {
					return colExpr(i, s[i], e.Span()), nil
				}
				return nil, semErr(e, "unknown field %q on the %s side of the join", name, strings.TrimPrefix(which, "$"))
			}
		}
	}
	c := p.compilerFor(s)
	c.side = func(w, name string, n parser.Node) (*typed, error) {
		if w != which {
			return nil, semErr(n, "%s cannot be used on this side of the join condition", w)
		}
		i := s.Index(name)
		if i < 0 {
			return nil, semErr(n, "unknown field %q on the %s side of the join", name, strings.TrimPrefix(which, "$"))
		}
		return colExpr(i, s[i], n.Span()), nil
	}
	return c.compile(e)
}
