package core

import (
	"strings"

	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// joinSpec is what every join plan shares: the kind, both input schemas,
// the planned right side, the key conditions and the output columns.
//
// Output columns are the left columns, then the right columns; a right
// column whose name is taken gets a numeric suffix (Key1), as in KQL.
// Semi and anti joins output one side only. lookup drops the right key
// columns, which would repeat the left ones.
type joinSpec struct {
	kind        joinKind
	left, right schema
	sch         schema
	rightPl     *pipeline
	keys        []joinKey
	types       []vector.Type
	rightCols   []int // right columns in the output, in order
	outL, outR  bool
}

// joinStage is a blocking hash join for the kinds that need to know,
// after all of the left side, which right rows matched (rightouter,
// fullouter, rightsemi, rightanti). The left input arrives through the
// scan workers' sinks; the right side runs when the left is complete and
// the smaller side is hashed. The other kinds use probeJoinStage.
type joinStage struct {
	joinSpec
	collectInput *collectStage
}

// joinKey is one equality condition: a left and a right expression.
type joinKey struct {
	l, r     *expr
	rightCol int // the right column the key reads as is, or -1
}

func (p *planner) planJoin(in schema, op *parser.JoinOp) (stage, error) {
	kind, ok := joinKindNames[strings.ToLower(op.Kind)]
	if !ok {
		return nil, semErr(op, "unknown join kind %q", op.Kind)
	}
	return p.newJoin(in, op, kind, op.Right, op.On, false)
}

// newJoin plans the right side and the conditions and derives the output
// schema.
func (p *planner) newJoin(in schema, op parser.Node, kind joinKind, right *parser.Pipeline, on []parser.Expr, lookup bool) (stage, error) {
	if len(on) == 0 {
		return nil, semErr(op, "join needs at least one condition: on key, or on $left.a == $right.b")
	}
	rpl, err := p.planPipeline(right)
	if err != nil {
		return nil, err
	}
	j := joinSpec{kind: kind, left: in, right: rpl.out(), rightPl: rpl}
	var rightASTs []parser.Expr // the right operands, for narrowRight
	for _, cond := range on {
		k, rx, err := p.joinCondition(in, j.right, cond)
		if err != nil {
			return nil, err
		}
		rightASTs = append(rightASTs, rx)
		j.keys = append(j.keys, k)
		j.types = append(j.types, k.l.typ)
	}
	j.outL = kind != joinRightSemi && kind != joinRightAnti
	j.outR = kind != joinLeftSemi && kind != joinLeftAnti
	if j.outL {
		j.sch = append(j.sch, in...)
	}
	if j.outR {
		drop := map[int]bool{}
		if lookup {
			for _, k := range j.keys {
				if k.rightCol >= 0 {
					drop[k.rightCol] = true
				}
			}
		}
		for i, c := range j.right {
			if drop[i] {
				continue
			}
			if j.sch.index(c.Name) >= 0 {
				c.Name = uniqueName(j.sch, c.Name)
			}
			j.sch = append(j.sch, c)
			j.rightCols = append(j.rightCols, i)
		}
	}
	narrowRight(&j, rightASTs)
	switch kind {
	case joinRightOuter, joinFullOuter, joinRightSemi, joinRightAnti:
		return &joinStage{joinSpec: j, collectInput: &collectStage{sch: in}}, nil
	}
	return &probeJoinStage{joinSpec: j}, nil
}

// joinCondition compiles `key` (the same column on both sides) or
// `l == r`, where l reads the left side and r the right one, and returns
// the right operand's AST for narrowRight. $left.x and
// $right.x name a side explicitly; without them the left operand of ==
// belongs to the left side, as Axiom documents.
func (p *planner) joinCondition(left, right schema, cond parser.Expr) (joinKey, parser.Expr, error) {
	var lx, rx parser.Expr
	switch c := cond.(type) {
	case *parser.Ident:
		if left.index(c.Name) < 0 {
			return joinKey{}, nil, semErr(c, "join key %q is not a field of the left side", c.Name)
		}
		if right.index(c.Name) < 0 {
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
	rcol := r.col // before a cast hides it: lookup drops this column
	l, r, err = unifyJoinTypes(cond, l, r)
	return joinKey{l: l, r: r, rightCol: rcol}, rx, err
}

// unifyJoinTypes makes both key expressions one type: equal types stay,
// long and real compare as real, an all-null side takes the other's type.
// A dynamic side (a field that arrives as 200 and as "200") is read as the
// other side's type, numbers as reals, the way a comparison coerces it.
// Anything else is a planning error, as in Axiom ("the two sides of the
// equality expression must have the same data type").
func unifyJoinTypes(cond parser.Expr, l, r *expr) (*expr, *expr, error) {
	switch {
	case l.typ == r.typ:
		return l, r, nil
	case l.typ.IsNumeric() && r.typ.IsNumeric(),
		l.typ == vector.Dynamic && r.typ.IsNumeric(),
		r.typ == vector.Dynamic && l.typ.IsNumeric():
		return castExpr(l, vector.Float), castExpr(r, vector.Float), nil
	case l.typ == vector.Dynamic:
		return castExpr(l, r.typ), r, nil
	case r.typ == vector.Dynamic:
		return l, castExpr(r, l.typ), nil
	case l.typ == vector.Null:
		return castExpr(l, r.typ), r, nil
	case r.typ == vector.Null:
		return l, castExpr(r, l.typ), nil
	}
	return nil, nil, semErr(cond, "join condition compares %s (left) with %s (right): both sides must have the same type; convert one side, for example with tostring()", l.typ, r.typ)
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
func (p *planner) sideExpr(s schema, which string, e parser.Expr) (*expr, error) {
	if name, ok := dottedName(e); ok && strings.HasPrefix(name, which+".") {
		if i := s.index(name[len(which)+1:]); i >= 0 {
			return colExpr(i, s[i], e.Span()), nil
		}
	}
	if ix, ok := e.(*parser.IndexExpr); ok {
		if id, ok := ix.X.(*parser.Ident); ok && id.Name == which {
			if lit, ok := ix.Index.(*parser.Literal); ok && lit.Kind == parser.LitString {
				name := lit.Value.(string)
				if i := s.index(name); i >= 0 {
					return colExpr(i, s[i], e.Span()), nil
				}
				return nil, semErr(e, "unknown field %q on the %s side of the join", name, strings.TrimPrefix(which, "$"))
			}
		}
	}
	c := p.compilerFor(s)
	c.side = func(w, name string, n parser.Node) (*expr, error) {
		if w != which {
			return nil, semErr(n, "%s cannot be used on this side of the join condition", w)
		}
		i := s.index(name)
		if i < 0 {
			return nil, semErr(n, "unknown field %q on the %s side of the join", name, strings.TrimPrefix(which, "$"))
		}
		return colExpr(i, s[i], n.Span()), nil
	}
	return c.compile(e)
}

func (j *joinSpec) out() schema { return j.sch }

func (j *joinStage) newSink(x *execCtx) (sink, error) { return j.collectInput.newSink(x) }

// finish runs the right side, matches the keys and assembles the output.
func (j *joinStage) finish(x *execCtx, sinks []sink) (*batch, error) {
	lb, err := j.collectInput.finish(x, sinks)
	if err != nil {
		return nil, err
	}
	rb, err := j.rightPl.execute(x)
	if err != nil {
		return nil, err
	}
	if err := lb.compact(); err != nil {
		return nil, err
	}
	if err := rb.compact(); err != nil {
		return nil, err
	}
	lk, rk := make([]*vector.Vector, len(j.keys)), make([]*vector.Vector, len(j.keys))
	for i, k := range j.keys {
		if lk[i], err = k.l.run(x, lb); err != nil {
			return nil, err
		}
		if rk[i], err = k.r.run(x, rb); err != nil {
			return nil, err
		}
	}
	m, err := newMatcher(x, j.types, lk, rk, lb.N, rb.N, lb.N < rb.N, int64(len(j.sch))*16+8)
	if err != nil {
		return nil, err
	}
	p, err := m.plan(j.kind)
	if err != nil {
		return nil, err
	}
	return j.assemble(lb, rb, p), nil
}

// assemble gathers the output columns from both sides.
func (j *joinSpec) assemble(lb, rb *batch, p joinPairs) *batch {
	n := len(p.l)
	if !j.outL {
		n = len(p.r)
	}
	vecs := make([]*vector.Vector, 0, len(j.sch))
	if j.outL {
		for _, v := range lb.Cols {
			vecs = append(vecs, gatherPad(v, p.l))
		}
	}
	if j.outR {
		for _, c := range j.rightCols {
			vecs = append(vecs, gatherPad(rb.Cols[c], p.r))
		}
	}
	return newBatch(vecs, n)
}
