package core

import (
	"strings"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

func (p *planner) planJoin(in exec.Schema, op *parser.JoinOp) (exec.Stage, error) {
	kind, ok := exec.JoinKindNames[strings.ToLower(op.Kind)]
	if !ok {
		return nil, semErr(op, "unknown join kind %q", op.Kind)
	}
	return p.newJoin(in, op, kind, op.Right, op.On, false)
}

// newJoin plans the right side and the conditions and derives the output
// Schema.
func (p *planner) newJoin(in exec.Schema, op parser.Node, kind exec.JoinKind, right *parser.Pipeline, on []parser.Expr, lookup bool) (exec.Stage, error) {
	if len(on) == 0 {
		return nil, semErr(op, "join needs at least one condition: on key, or on $left.a == $right.b")
	}
	rpl, err := p.planPipeline(right)
	if err != nil {
		return nil, err
	}
	j := exec.JoinSpec{Kind: kind, Left: in, Right: rpl.Out(), RightPl: rpl}
	var rightASTs []parser.Expr // the right operands, for narrowRight
	for _, cond := range on {
		k, rx, err := p.joinCondition(in, j.Right, cond)
		if err != nil {
			return nil, err
		}
		rightASTs = append(rightASTs, rx)
		j.Keys = append(j.Keys, k)
		j.Types = append(j.Types, k.L.Typ)
	}
	j.OutL = kind != exec.JoinRightSemi && kind != exec.JoinRightAnti
	j.OutR = kind != exec.JoinLeftSemi && kind != exec.JoinLeftAnti
	if j.OutL {
		j.Sch = append(j.Sch, in...)
	}
	if j.OutR {
		drop := map[int]bool{}
		if lookup {
			for _, k := range j.Keys {
				if k.RightCol >= 0 {
					drop[k.RightCol] = true
				}
			}
		}
		for i, c := range j.Right {
			if drop[i] {
				continue
			}
			if j.Sch.Index(c.Name) >= 0 {
				c.Name = uniqueName(j.Sch, c.Name)
			}
			j.Sch = append(j.Sch, c)
			j.RightCols = append(j.RightCols, i)
		}
	}
	narrowRight(&j, rightASTs)
	switch kind {
	case exec.JoinRightOuter, exec.JoinFullOuter, exec.JoinRightSemi, exec.JoinRightAnti:
		return &exec.JoinStage{JoinSpec: j, CollectInput: &exec.CollectStage{Sch: in}}, nil
	}
	return &exec.ProbeJoinStage{JoinSpec: j}, nil
}

// joinCondition compiles `key` (the same column on both sides) or
// `l == r`, where l reads the left side and r the right one, and returns
// the right operand's AST for narrowRight. $left.x and
// $right.x name a side explicitly; without them the left operand of ==
// belongs to the left side, as Axiom documents.
func (p *planner) joinCondition(left, right exec.Schema, cond parser.Expr) (exec.JoinKey, parser.Expr, error) {
	var lx, rx parser.Expr
	switch c := cond.(type) {
	case *parser.Ident:
		if left.Index(c.Name) < 0 {
			return exec.JoinKey{}, nil, semErr(c, "join key %q is not a field of the left side", c.Name)
		}
		if right.Index(c.Name) < 0 {
			return exec.JoinKey{}, nil, semErr(c, "join key %q is not a field of the right side", c.Name)
		}
		lx, rx = c, c
	case *parser.BinaryExpr:
		if c.Op != "==" {
			return exec.JoinKey{}, nil, semErr(c, "a join condition must be an equality (==), not %s; separate several conditions with commas", c.Op)
		}
		lx, rx = c.L, c.R
		ls, rs := sideOf(c.L), sideOf(c.R)
		if ls == "both" || rs == "both" {
			return exec.JoinKey{}, nil, semErr(c, "each side of a join condition must read one side: $left or $right, not both")
		}
		if ls == "$right" || rs == "$left" {
			lx, rx = rx, lx
			ls, rs = rs, ls
		}
		if ls == rs && ls != "" {
			return exec.JoinKey{}, nil, semErr(c, "both sides of the join condition read %s", ls)
		}
	default:
		return exec.JoinKey{}, nil, semErr(cond, "a join condition must be a field name or left == right")
	}
	l, err := p.sideExpr(left, "$left", lx)
	if err != nil {
		return exec.JoinKey{}, nil, err
	}
	r, err := p.sideExpr(right, "$right", rx)
	if err != nil {
		return exec.JoinKey{}, nil, err
	}
	rcol := r.Col // before a cast hides it: lookup drops this column
	l, r, err = unifyJoinTypes(cond, l, r)
	return exec.JoinKey{L: l, R: r, RightCol: rcol}, rx, err
}

// unifyJoinTypes makes both key expressions one type: equal types stay,
// long and real compare as real, an all-null side takes the other's type.
// A dynamic side (a field that arrives as 200 and as "200") is read as the
// other side's type, numbers as reals, the way a comparison coerces it.
// Anything else is a planning error, as in Axiom ("the two sides of the
// equality expression must have the same data type").
func unifyJoinTypes(cond parser.Expr, l, r *exec.Expr) (*exec.Expr, *exec.Expr, error) {
	switch {
	case l.Typ == r.Typ:
		return l, r, nil
	case l.Typ.IsNumeric() && r.Typ.IsNumeric(),
		l.Typ == vector.Dynamic && r.Typ.IsNumeric(),
		r.Typ == vector.Dynamic && l.Typ.IsNumeric():
		return exec.CastExpr(l, vector.Float), exec.CastExpr(r, vector.Float), nil
	case l.Typ == vector.Dynamic:
		return exec.CastExpr(l, r.Typ), r, nil
	case r.Typ == vector.Dynamic:
		return l, exec.CastExpr(r, l.Typ), nil
	case l.Typ == vector.Null:
		return exec.CastExpr(l, r.Typ), r, nil
	case r.Typ == vector.Null:
		return l, exec.CastExpr(r, l.Typ), nil
	}
	return nil, nil, semErr(cond, "join condition compares %s (left) with %s (right): both sides must have the same type; convert one side, for example with tostring()", l.Typ, r.Typ)
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
func (p *planner) sideExpr(s exec.Schema, which string, e parser.Expr) (*exec.Expr, error) {
	if name, ok := dottedName(e); ok && strings.HasPrefix(name, which+".") {
		if i := s.Index(name[len(which)+1:]); i >= 0 {
			return exec.ColExpr(i, s[i], e.Span()), nil
		}
	}
	if ix, ok := e.(*parser.IndexExpr); ok {
		if id, ok := ix.X.(*parser.Ident); ok && id.Name == which {
			if lit, ok := ix.Index.(*parser.Literal); ok && lit.Kind == parser.LitString {
				name := lit.Value.(string)
				if i := s.Index(name); i >= 0 {
					return exec.ColExpr(i, s[i], e.Span()), nil
				}
				return nil, semErr(e, "unknown field %q on the %s side of the join", name, strings.TrimPrefix(which, "$"))
			}
		}
	}
	c := p.compilerFor(s)
	c.side = func(w, name string, n parser.Node) (*exec.Expr, error) {
		if w != which {
			return nil, semErr(n, "%s cannot be used on this side of the join condition", w)
		}
		i := s.Index(name)
		if i < 0 {
			return nil, semErr(n, "unknown field %q on the %s side of the join", name, strings.TrimPrefix(which, "$"))
		}
		return exec.ColExpr(i, s[i], n.Span()), nil
	}
	return c.compile(e)
}
