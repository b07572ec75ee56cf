package exec

import (
	"errors"
	"fmt"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// Expr is a compiled scalar expression: its result type, a default output
// column name, and an evaluator that computes it over the live rows of a
// Batch (its result has a row for every physical row, and those not in
// the batch's Sel are unspecified, as vector.Batch's contract says). A
// constant expression carries its value in cnst (a Const vector of length
// 1) so operators can special-case literals and the planner can fold them.
type Expr struct {
	Typ  vector.Type
	Name string // default column name when the expression is a column reference
	Col  int    // input column index when the expression is a plain column reference, else -1
	Cnst *vector.Vector
	Eval func(x *Ctx, b *Batch) (*vector.Vector, error)
	Span srcpos.Span
	// Node is the expression as plan data (core/plan): what a fragment
	// carries to another node, which builds this same evaluator from it
	// (build_expr.go). nil when the expression has no plan form (a join's
	// $left/$right terms); a stage holding one does not travel.
	Node *plan.Expr
}

// IsConst reports whether the expression has a fixed value.
func (e *Expr) IsConst() bool { return e.Cnst != nil }

// ConstValue returns the boxed constant value (nil for null or non-constant).
func (e *Expr) ConstValue() any {
	if e.Cnst == nil {
		return nil
	}
	return e.Cnst.Value(0)
}

// Run evaluates e over batch b; a constant becomes a Const vector of b.n rows.
func (e *Expr) Run(x *Ctx, b *Batch) (*vector.Vector, error) {
	if e.Cnst != nil {
		c := *e.Cnst
		c.Len = b.N
		return &c, nil
	}
	// The deadline is checked at every node, not only between batches:
	// a 1 MB where clause of or-ed comparisons is a tree of 100,000
	// nodes that ran 46 s over one batch with a 30 s -query-timeout. An
	// atomic load per node and batch costs nothing beside the node's
	// vector work.
	if x != nil && x.Ctx != nil {
		if err := x.Ctx.Err(); err != nil {
			return nil, err
		}
	}
	return e.Eval(x, b)
}

// constVecExpr is the constant expression of c, a Const vector of one
// row. Its node holds the value as the vector boxes it, so a constant
// written as a literal and one decoded from a plan are the same vector.
func constVecExpr(c *vector.Vector, sp srcpos.Span) *Expr {
	return &Expr{Typ: c.Type, Col: -1, Cnst: c, Span: sp, Node: plan.Const(c.Type, c.Value(0), posOf(sp))}
}

// ColExpr returns a reference to input column i.
func ColExpr(i int, c ColDef, sp srcpos.Span) *Expr {
	return &Expr{Typ: c.Type, Name: c.Name, Col: i, Span: sp, Node: plan.Col(i, c.Name, c.Type, posOf(sp)),
		Eval: func(x *Ctx, b *Batch) (*vector.Vector, error) {
			return b.Col(i)
		}}
}

// posOf is a span's start as a plan position; nil for a span the
// planner made up (no line).
func posOf(sp srcpos.Span) *plan.Pos {
	if sp.Start.Line == 0 {
		return nil
	}
	return &plan.Pos{sp.Start.Line, sp.Start.Col}
}

// spanOf is the span a plan position stands for.
func spanOf(p *plan.Pos) srcpos.Span {
	if p == nil {
		return srcpos.Span{}
	}
	return srcpos.Span{Start: srcpos.Pos{Line: p[0], Col: p[1]}}
}

// nodeOf is the plan node of an operator over args, or nil when one of
// them has no plan form (then neither has the operator). A nil arg is
// an absent optional operand and stays nil in the node.
func nodeOf(k plan.Kind, t vector.Type, op string, sp srcpos.Span, args ...*Expr) *plan.Expr {
	nodes := make([]*plan.Expr, len(args))
	for i, a := range args {
		if a == nil {
			continue
		}
		if a.Node == nil {
			return nil
		}
		nodes[i] = a.Node
	}
	return plan.Node(k, t, op, posOf(sp), nodes...)
}

// SemErrAt is semErr for what the execution reports: it keeps the span
// of a node, not the node.
func SemErrAt(sp srcpos.Span, format string, args ...any) error {
	p := sp.Start
	return &QueryError{Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...), Kind: "semantic"}
}

// CallExpr is the evaluator of registry function f (called as name,
// for error messages) over args, with result type rt.
func CallExpr(node *plan.Expr, sp srcpos.Span, rt vector.Type, name string, f *fn.Func, args []*Expr) *Expr {
	n := len(args)
	return &Expr{Typ: rt, Col: -1, Span: sp, Node: node, Eval: func(x *Ctx, b *Batch) (*vector.Vector, error) {
		vs := make([]*vector.Vector, n)
		for i, a := range args {
			v, err := a.Run(x, b)
			if err != nil {
				return nil, err
			}
			vs[i] = v
		}
		out, err := f.Eval(x.Fn, vs, b.rows())
		if err != nil {
			return nil, callErr(sp, name, args, err)
		}
		return out, nil
	}}
}

// callErr is the error of a call that failed: a pattern argument that
// does not compile is the query's mistake, reported at that argument (a
// 400); anything else keeps the function's name.
func callErr(sp srcpos.Span, name string, args []*Expr, err error) error {
	var pe *fn.PatternError
	if errors.As(err, &pe) {
		if pe.Arg < len(args) && args[pe.Arg].Span.Start.Line > 0 {
			sp = args[pe.Arg].Span
		}
		return SemErrAt(sp, "%s", pe.Error())
	}
	return wrapCallErr(name, err)
}

// Arity words how many arguments a function takes, for its errors.
func Arity(min, max int) string {
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
