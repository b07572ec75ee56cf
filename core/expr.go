package core

import (
	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// typed is a compiled expression as the planner keeps it: its plan node
// and what planning asks of it (its type, the column it reads as is,
// the name it gives a column, its value when constant), and no
// evaluator. Nothing the planner makes runs: a run builds its operators
// from the nodes (exec.BuildQueryPipeline), and a constant's value comes
// from exec.EvalConst.
type typed struct {
	// Node is never nil: every expression the compiler accepts has a
	// plan form.
	Node *plan.Expr
	Typ  vector.Type
	// Name is the default column name when the expression is a column
	// reference.
	Name string
	// Col is the input column when the expression is a plain column
	// reference, else -1.
	Col int
	// Cnst is a constant's value, a Const vector of one row; nil for the
	// others.
	Cnst *vector.Vector
	Span srcpos.Span
}

// IsConst reports whether the expression has a fixed value.
func (e *typed) IsConst() bool { return e.Cnst != nil }

// ConstValue returns the boxed constant value (nil for null or non-constant).
func (e *typed) ConstValue() any {
	if e.Cnst == nil {
		return nil
	}
	return e.Cnst.Value(0)
}

// constExpr returns a constant expression of type t and boxed value v.
func constExpr(t vector.Type, v any, sp srcpos.Span) *typed {
	return constVec(vector.NewConst(t, v, 1), sp)
}

// constVec is the constant expression of c, a Const vector of one row.
// Its node holds the value as the vector boxes it, so a constant written
// as a literal and one decoded from a plan are the same vector.
func constVec(c *vector.Vector, sp srcpos.Span) *typed {
	return &typed{Typ: c.Type, Col: -1, Cnst: c, Span: sp, Node: plan.Const(c.Type, c.Value(0), posOf(sp))}
}

// colExpr is a reference to input column i.
func colExpr(i int, c exec.ColDef, sp srcpos.Span) *typed {
	return &typed{Typ: c.Type, Name: c.Name, Col: i, Span: sp, Node: plan.Col(i, c.Name, c.Type, posOf(sp))}
}

// nodeExpr is the expression of an operator or call of kind k over args
// (a nil arg is an absent optional operand, nil in the node too).
func nodeExpr(k plan.Kind, t vector.Type, op string, sp srcpos.Span, args ...*typed) *typed {
	nodes := make([]*plan.Expr, len(args))
	for i, a := range args {
		if a != nil {
			nodes[i] = a.Node
		}
	}
	return &typed{Typ: t, Col: -1, Span: sp, Node: plan.Node(k, t, op, posOf(sp), nodes...)}
}

// castExpr converts e to type t; a constant is converted now.
func castExpr(fc *fn.Context, e *typed, t vector.Type) (*typed, error) {
	if e.Typ == t {
		return e, nil
	}
	out := nodeExpr(plan.KCast, t, "", e.Span, e)
	out.Name = e.Name
	if e.IsConst() {
		return fold(fc, out)
	}
	return out, nil
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

// constValue computes a constant-argument expression over one row.
func constValue(fc *fn.Context, e *typed) (*vector.Vector, error) {
	if e.Cnst != nil {
		c := *e.Cnst
		c.Len = 1
		return &c, nil
	}
	return exec.EvalConst(fc, e.Node)
}

// fold evaluates a constant-argument expression once, at plan time, and
// turns it into a constant; volatile functions are never folded.
func fold(fc *fn.Context, e *typed) (*typed, error) {
	if e.Cnst != nil {
		return e, nil
	}
	v, err := constValue(fc, e)
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
	out := constVec(c, e.Span)
	out.Name = e.Name
	return out, nil
}

// allConst reports whether every expression is constant.
func allConst(es []*typed) bool {
	for _, e := range es {
		if !e.IsConst() {
			return false
		}
	}
	return true
}

// callFunc compiles a registry function call over compiled arguments.
func (c *compiler) callFunc(call *parser.CallExpr, f *fn.Func, args []*typed) (*typed, error) {
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
	e := nodeExpr(plan.KCall, rt, "", call.Sp, args...)
	e.Node.Name = name
	if allConst(args) && !f.Volatile {
		return fold(c.fc, e)
	}
	return e, nil
}
