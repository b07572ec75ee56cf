package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// constExpr returns a constant expression of type t and boxed value v.
func constExpr(t vector.Type, v any, sp srcpos.Span) *exec.Expr {
	return exec.ConstVecExpr(vector.NewConst(t, v, 1), sp)
}

// posOf is a span's start as a plan position; nil for a span the
// planner made up (no line).
func posOf(sp srcpos.Span) *plan.Pos {
	if sp.Start.Line == 0 {
		return nil
	}
	return &plan.Pos{sp.Start.Line, sp.Start.Col}
}

// semErr builds a semantic error at the start of a node.
func semErr(n parser.Node, format string, args ...any) error {
	return exec.SemErrAt(n.Span(), format, args...)
}

// planned is a compiled expression as the planner keeps it: its plan
// node, type and place, and no evaluator. Nothing the planner makes runs:
// a run builds its operators from the nodes (exec.BuildQueryPipeline),
// and a constant's value comes from exec.EvalConst. A caller whose node
// is nil (an operand without a plan form) calls the exec constructor
// instead.
func planned(node *plan.Expr, sp srcpos.Span) *exec.Expr {
	if node == nil {
		return nil
	}
	return &exec.Expr{Typ: node.Type, Col: -1, Span: sp, Node: node}
}

// constValue computes a constant-argument expression over one row: from
// its node, through the execution, unless it has its own evaluator.
func constValue(x *exec.Ctx, e *exec.Expr) (*vector.Vector, error) {
	if e.Cnst != nil || e.Eval != nil {
		return e.Run(x, &exec.Batch{Batch: vector.Batch{N: 1}})
	}
	return exec.EvalConst(x, e.Node)
}

// fold evaluates a constant-argument expression once, at plan time, and
// turns it into a constant; volatile functions are never folded.
func fold(x *exec.Ctx, e *exec.Expr) (*exec.Expr, error) {
	if e.Cnst != nil || e.Eval == nil && e.Node == nil {
		return e, nil
	}
	v, err := constValue(x, e)
	if err != nil {
		return nil, err
	}
	c := vector.New(e.Typ, 1)
	if v.Type == e.Typ {
		c.AppendFrom(v, 0)
	} else {
		c.AppendValue(exec.ConvertValue(v.Value(0), e.Typ))
	}
	c.Const = true
	out := exec.ConstVecExpr(c, e.Span)
	out.Name = e.Name
	return out, nil
}

// allConst reports whether every expression is constant.
func allConst(es []*exec.Expr) bool {
	for _, e := range es {
		if !e.IsConst() {
			return false
		}
	}
	return true
}

// callFunc compiles a registry function call over compiled arguments.
func (c *compiler) callFunc(call *parser.CallExpr, f *fn.Func, args []*exec.Expr) (*exec.Expr, error) {
	n := len(args)
	if n < f.MinArgs || (f.MaxArgs >= 0 && n > f.MaxArgs) {
		return nil, semErr(call, "%s expects %s, got %d", call.Name, exec.Arity(f.MinArgs, f.MaxArgs), n)
	}
	types := make([]vector.Type, n)
	for i, a := range args {
		types[i] = a.Typ
	}
	rt, err := f.Result(types)
	if err != nil {
		return nil, semErr(call, "%s", exec.WithName(call.Name, asCalled(err.Error(), f.Name, call.Name)))
	}
	name := call.Name
	if fn.Lookup(name) != f { // pack(*) runs bag_pack
		name = f.Name
	}
	node := exec.NodeOf(plan.KCall, rt, "", call.Sp, args...)
	if node != nil {
		node.Name = name
	}
	e := planned(node, call.Sp)
	if node == nil {
		e = exec.CallExpr(node, call.Sp, rt, name, f, args)
	}
	if allConst(args) && !f.Volatile {
		return fold(c.x, e)
	}
	return e, nil
}
