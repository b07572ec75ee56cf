package core

import (
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// typed is a compiled expression as the planner keeps it: its plan node
// and what planning asks of it (its type, the column it reads as is,
// the name it gives a column), and no evaluator; a constant's value is
// its node's. Nothing the planner makes runs: a run builds its operators
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
	Col  int
	Span srcpos.Span
}

// IsConst reports whether the expression has a fixed value.
func (e *typed) IsConst() bool { return e.Node.Kind == plan.KConst }

// ConstValue returns the boxed constant value (nil for null or non-constant).
func (e *typed) ConstValue() any { return e.Node.ConstValue() }

// constInt is the value of a long, datetime or timespan constant as the
// int64 its vector holds (nanoseconds for the last two).
func (e *typed) constInt() int64 {
	switch v := e.ConstValue().(type) {
	case int64:
		return v
	case time.Duration:
		return int64(v)
	case time.Time:
		return v.UnixNano()
	}
	return 0
}

// constExpr returns a constant expression of type t and boxed value v.
// Its node holds the value as a vector of type t boxes it, so a
// constant written as a literal and one decoded from a plan are the
// same vector.
func constExpr(t vector.Type, v any, sp srcpos.Span) *typed {
	return &typed{Typ: t, Col: -1, Span: sp, Node: plan.Const(t, boxed(t, v), posOf(sp))}
}

// boxed is v as a vector of type t boxes it (vector.Value). The
// values a vector returns as they are skip the round trip: planning
// makes a constant for every literal and folded expression.
func boxed(t vector.Type, v any) any {
	if t == vector.Dynamic {
		return v // stored and returned as it is
	}
	switch v.(type) {
	case nil:
		return nil
	case int64:
		if t == vector.Int {
			return v
		}
	case string:
		if t == vector.String {
			return v
		}
	case float64:
		if t == vector.Float {
			return v
		}
	case bool:
		if t == vector.Bool {
			return v
		}
	case time.Duration:
		if t == vector.TimeSpan {
			return v
		}
	}
	return vector.NewConst(t, v, 1).Value(0)
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
	if e.IsConst() {
		return vector.NewConst(e.Typ, e.ConstValue(), 1), nil
	}
	return exec.EvalConst(fc, e.Node)
}

// fold evaluates a constant-argument expression once, at plan time, and
// turns it into a constant; volatile functions are never folded, nor are
// values too large to keep in the plan (fold_limit.go).
func fold(fc *fn.Context, e *typed) (*typed, error) {
	if e.IsConst() {
		return e, nil
	}
	v, small, err := evalFoldable(fc, e.Node)
	if err != nil {
		return nil, err
	}
	if !small {
		return e, nil // fold_limit.go: a run evaluates it under its budget
	}
	val := v.Value(0)
	if v.Type != e.Typ {
		val = exec.ConvertValue(val, e.Typ)
	}
	out := constExpr(e.Typ, val, e.Span)
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
	if err := checkPatterns(f, args); err != nil {
		return nil, err
	}
	name := call.Name
	if fn.Lookup(name) != f { // pack(*) runs bag_pack
		name = f.Name
	}
	e := nodeExpr(plan.KCall, rt, "", call.Sp, args...)
	e.Node.Name = name
	if f.VariesBetweenRuns() && c.noCache != nil && *c.noCache == "" {
		*c.noCache = name + "() varies between runs"
	}
	if allConst(args) && !f.Volatile {
		return fold(c.fc, e)
	}
	return e, nil
}
