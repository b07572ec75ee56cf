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

// semErr builds a semantic error at the start of a node.
func semErr(n parser.Node, format string, args ...any) error {
	return exec.SemErrAt(n.Span(), format, args...)
}

// fold evaluates a constant-argument expression once, at plan time, and
// turns it into a constant; volatile functions are never folded.
func fold(x *exec.Ctx, e *exec.Expr) (*exec.Expr, error) {
	if e.Cnst != nil || e.Eval == nil {
		return e, nil
	}
	v, err := e.Eval(x, &exec.Batch{Batch: vector.Batch{N: 1}})
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
	e := exec.CallExpr(node, call.Sp, rt, name, f, args)
	if allConst(args) && !f.Volatile {
		return fold(c.x, e)
	}
	return e, nil
}
