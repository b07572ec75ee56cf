package core

import (
	"fmt"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// expr is a compiled scalar expression: its result type, a default output
// column name, and an evaluator that computes it over the live rows of a
// batch (its result has a row for every physical row, and those not in
// the batch's Sel are unspecified, as vector.Batch's contract says). A
// constant expression carries its value in cnst (a Const vector of length
// 1) so operators can special-case literals and the planner can fold them.
type expr struct {
	typ  vector.Type
	name string // default column name when the expression is a column reference
	col  int    // input column index when the expression is a plain column reference, else -1
	cnst *vector.Vector
	eval func(x *execCtx, b *batch) (*vector.Vector, error)
	span parser.Span
	// node is the expression as plan data (core/plan): what a fragment
	// carries to another node, which builds this same evaluator from it
	// (plan_build.go). nil when the expression has no plan form (a join's
	// $left/$right terms); a stage holding one does not travel.
	node *plan.Expr
}

// isConst reports whether the expression has a fixed value.
func (e *expr) isConst() bool { return e.cnst != nil }

// constValue returns the boxed constant value (nil for null or non-constant).
func (e *expr) constValue() any {
	if e.cnst == nil {
		return nil
	}
	return e.cnst.Value(0)
}

// run evaluates e over batch b; a constant becomes a Const vector of b.n rows.
func (e *expr) run(x *execCtx, b *batch) (*vector.Vector, error) {
	if e.cnst != nil {
		c := *e.cnst
		c.Len = b.N
		return &c, nil
	}
	// The deadline is checked at every node, not only between batches:
	// a 1 MB where clause of or-ed comparisons is a tree of 100,000
	// nodes that ran 46 s over one batch with a 30 s -query-timeout. An
	// atomic load per node and batch costs nothing beside the node's
	// vector work.
	if x != nil && x.ctx != nil {
		if err := x.ctx.Err(); err != nil {
			return nil, err
		}
	}
	return e.eval(x, b)
}

// constExpr returns a constant expression of type t and boxed value v.
func constExpr(t vector.Type, v any, sp parser.Span) *expr {
	return constVecExpr(vector.NewConst(t, v, 1), sp)
}

// constVecExpr is the constant expression of c, a Const vector of one
// row. Its node holds the value as the vector boxes it, so a constant
// written as a literal and one decoded from a plan are the same vector.
func constVecExpr(c *vector.Vector, sp parser.Span) *expr {
	return &expr{typ: c.Type, col: -1, cnst: c, span: sp, node: plan.Const(c.Type, c.Value(0), posOf(sp))}
}

// colExpr returns a reference to input column i.
func colExpr(i int, c colDef, sp parser.Span) *expr {
	return &expr{typ: c.Type, name: c.Name, col: i, span: sp, node: plan.Col(i, c.Name, c.Type, posOf(sp)),
		eval: func(x *execCtx, b *batch) (*vector.Vector, error) {
			return b.col(i)
		}}
}

// posOf is a span's start as a plan position; nil for a span the
// planner made up (no line).
func posOf(sp parser.Span) *plan.Pos {
	if sp.Start.Line == 0 {
		return nil
	}
	return &plan.Pos{sp.Start.Line, sp.Start.Col}
}

// spanOf is the span a plan position stands for.
func spanOf(p *plan.Pos) parser.Span {
	if p == nil {
		return parser.Span{}
	}
	return parser.Span{Start: parser.Pos{Line: p[0], Col: p[1]}}
}

// nodeOf is the plan node of an operator over args, or nil when one of
// them has no plan form (then neither has the operator). A nil arg is
// an absent optional operand and stays nil in the node.
func nodeOf(k plan.Kind, t vector.Type, op string, sp parser.Span, args ...*expr) *plan.Expr {
	nodes := make([]*plan.Expr, len(args))
	for i, a := range args {
		if a == nil {
			continue
		}
		if a.node == nil {
			return nil
		}
		nodes[i] = a.node
	}
	return plan.Node(k, t, op, posOf(sp), nodes...)
}

// semErr builds a semantic error at the start of a node.
func semErr(n parser.Node, format string, args ...any) error {
	p := n.Span().Start
	return &QueryError{Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...), Kind: "semantic"}
}

// fold evaluates a constant-argument expression once, at plan time, and
// turns it into a constant; volatile functions are never folded.
func fold(x *execCtx, e *expr) (*expr, error) {
	if e.cnst != nil || e.eval == nil {
		return e, nil
	}
	v, err := e.eval(x, &batch{Batch: vector.Batch{N: 1}})
	if err != nil {
		return nil, err
	}
	c := vector.New(e.typ, 1)
	if v.Type == e.typ {
		c.AppendFrom(v, 0)
	} else {
		c.AppendValue(convertValue(v.Value(0), e.typ))
	}
	c.Const = true
	out := constVecExpr(c, e.span)
	out.name = e.name
	return out, nil
}

// allConst reports whether every expression is constant.
func allConst(es []*expr) bool {
	for _, e := range es {
		if !e.isConst() {
			return false
		}
	}
	return true
}

// callFunc compiles a registry function call over compiled arguments.
func (c *compiler) callFunc(call *parser.CallExpr, f *fn.Func, args []*expr) (*expr, error) {
	n := len(args)
	if n < f.MinArgs || (f.MaxArgs >= 0 && n > f.MaxArgs) {
		return nil, semErr(call, "%s expects %s, got %d", call.Name, arity(f.MinArgs, f.MaxArgs), n)
	}
	types := make([]vector.Type, n)
	for i, a := range args {
		types[i] = a.typ
	}
	rt, err := f.Result(types)
	if err != nil {
		return nil, semErr(call, "%s", withName(call.Name, asCalled(err.Error(), f.Name, call.Name)))
	}
	name := call.Name
	if fn.Lookup(name) != f { // pack(*) runs bag_pack
		name = f.Name
	}
	node := nodeOf(plan.KCall, rt, "", call.Sp, args...)
	if node != nil {
		node.Name = name
	}
	e := callExpr(node, call.Sp, rt, name, f, args)
	if allConst(args) && !f.Volatile {
		return fold(c.x, e)
	}
	return e, nil
}

// callExpr is the evaluator of registry function f (called as name,
// for error messages) over args, with result type rt.
func callExpr(node *plan.Expr, sp parser.Span, rt vector.Type, name string, f *fn.Func, args []*expr) *expr {
	n := len(args)
	return &expr{typ: rt, col: -1, span: sp, node: node, eval: func(x *execCtx, b *batch) (*vector.Vector, error) {
		vs := make([]*vector.Vector, n)
		for i, a := range args {
			v, err := a.run(x, b)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		out, err := f.Eval(x.fn, vs, b.rows())
		if err != nil {
			return nil, wrapCallErr(name, err)
		}
		return out, nil
	}}
}

func arity(min, max int) string {
	switch {
	case max < 0:
		return fmt.Sprintf("at least %d arguments", min)
	case min == max && min == 1:
		return "1 argument"
	case min == max:
		return fmt.Sprintf("%d arguments", min)
	}
	return fmt.Sprintf("%d to %d arguments", min, max)
}
