package core

import (
	"fmt"

	"github.com/aplite/aplite/core/fn"
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
	c := vector.NewConst(t, v, 1)
	return &expr{typ: t, col: -1, cnst: c, span: sp}
}

// colExpr returns a reference to input column i.
func colExpr(i int, c colDef, sp parser.Span) *expr {
	return &expr{typ: c.Type, name: c.Name, col: i, span: sp, eval: func(x *execCtx, b *batch) (*vector.Vector, error) {
		return b.col(i)
	}}
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
	return &expr{typ: e.typ, name: e.name, col: -1, cnst: c, span: e.span}, nil
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
		return nil, callErr(call, call.Name, err)
	}
	e := &expr{typ: rt, col: -1, span: call.Sp, eval: func(x *execCtx, b *batch) (*vector.Vector, error) {
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
			return nil, wrapCallErr(call.Name, err)
		}
		return out, nil
	}}
	if allConst(args) && !f.Volatile {
		return fold(c.x, e)
	}
	return e, nil
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
