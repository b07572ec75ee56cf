package exec

import (
	"fmt"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// Building evaluators from plan nodes: the second way to an *expr, beside
// compiling the AST. Both end in the same constructors (cmpExpr,
// CallExpr, ...), so a fragment decoded on another node runs the closure
// the sender's compiler would have built. The builder never folds (the
// sender folded; a folded node is a constant) and never needs the text:
// what the compiler decided from types it decides again from the
// children's types, and it refuses a node whose recorded type disagrees,
// which catches a sender whose registry differs from this node's.

// buildExpr builds the evaluator of node over input schema in.
func buildExpr(node *plan.Expr, in Schema) (*Expr, error) {
	if node == nil {
		return nil, fmt.Errorf("plan: missing expression")
	}
	sp := spanOf(node.Pos)
	args := make([]*Expr, len(node.Args))
	for i, a := range node.Args {
		if a == nil {
			continue // an absent slice bound
		}
		e, err := buildExpr(a, in)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	e, err := buildNode(node, in, args)
	if err != nil {
		return nil, err
	}
	if e.Typ != node.Type {
		return nil, fmt.Errorf("plan: %s node is %s here, the plan says %s", node.Kind, e.Typ, node.Type)
	}
	e.Node, e.Span = node, sp
	return e, nil
}

// buildNode calls the constructor of node's kind over built children.
func buildNode(node *plan.Expr, in Schema, args []*Expr) (*Expr, error) {
	sp := spanOf(node.Pos)
	need := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("plan: %s node has %d operands, not %d", node.Kind, len(args), n)
		}
		for _, a := range args {
			if a == nil {
				return fmt.Errorf("plan: %s node has an absent operand", node.Kind)
			}
		}
		return nil
	}
	switch node.Kind {
	case plan.KCol, plan.KCursor:
		if node.Index < 0 || node.Index >= len(in) {
			return nil, fmt.Errorf("plan: column %d of %d", node.Index, len(in))
		}
		if node.Kind == plan.KCursor {
			// The cursor reads the column's nanoseconds: only a datetime
			// column has them (the compiler passes _time's).
			if t := in[node.Index].Type; t != vector.DateTime {
				return nil, fmt.Errorf("plan: cursor of column %d, a %s", node.Index, t)
			}
			return cursorExpr(node.Index, sp), nil
		}
		e := ColExpr(node.Index, in[node.Index], sp)
		if in[node.Index].Name != node.Name {
			return nil, fmt.Errorf("plan: column %d is %q here, the plan says %q", node.Index, in[node.Index].Name, node.Name)
		}
		return e, nil
	case plan.KConst:
		return constVecExpr(vector.NewConst(node.Type, node.ConstValue(), 1), sp), nil
	case plan.KCast:
		if err := need(1); err != nil {
			return nil, err
		}
		return castExpr(args[0], node.Type), nil
	case plan.KCmp:
		if err := need(2); err != nil {
			return nil, err
		}
		if _, ok := CompareDomain(args[0].Typ, args[1].Typ); !ok || !isCmpOp(node.Op) {
			return nil, fmt.Errorf("plan: cannot compare %s with %s using %s", args[0].Typ, args[1].Typ, node.Op)
		}
		return cmpExpr(node, sp, node.Op, args[0], args[1]), nil
	case plan.KLogic:
		if err := need(2); err != nil {
			return nil, err
		}
		if node.Op != "and" && node.Op != "or" {
			return nil, fmt.Errorf("plan: unknown logical operator %q", node.Op)
		}
		return logicExpr(node, sp, node.Op == "and", args[0], args[1]), nil
	case plan.KNot:
		if err := need(1); err != nil {
			return nil, err
		}
		return notExpr(node, sp, args[0]), nil
	case plan.KArith:
		if err := need(2); err != nil {
			return nil, err
		}
		res, dom, ok := ArithType(node.Op, args[0].Typ, args[1].Typ)
		if _, known := vector.ArithInt64[node.Op]; !known {
			// ArithType reads the operator only for datetimes and
			// timespans; the kernels of an unknown one would be nil.
			return nil, fmt.Errorf("plan: unknown arithmetic operator %q", node.Op)
		}
		if !ok {
			return nil, fmt.Errorf("plan: operator %s is not defined for %s and %s", node.Op, args[0].Typ, args[1].Typ)
		}
		return arithExpr(node, sp, node.Op, res, dom, args[0], args[1]), nil
	case plan.KStr:
		if err := need(2); err != nil {
			return nil, err
		}
		return strExpr(node, sp, node.Op, args[0], args[1])
	case plan.KIn:
		if len(args) == 0 {
			return nil, fmt.Errorf("plan: in node without operand")
		}
		if err := need(len(args)); err != nil {
			return nil, err
		}
		switch node.Op {
		case "in", "!in", "in~", "!in~", "has_any", "has_any_cs", "has_all":
		default:
			// inExpr reads an operator by its prefix and suffix: an
			// unknown one would run as some in, a wrong answer.
			return nil, fmt.Errorf("plan: unknown in operator %q", node.Op)
		}
		return inExpr(node, sp, node.Op, args[0], args[1:]), nil
	case plan.KIndex:
		if err := need(2); err != nil {
			return nil, err
		}
		return indexExpr(node, sp, args[0], args[1]), nil
	case plan.KSlice:
		if len(args) != 3 || args[0] == nil {
			return nil, fmt.Errorf("plan: slice node needs 3 operands")
		}
		return sliceExpr(node, sp, node.Type, args[0], [2]*Expr{args[1], args[2]}), nil
	case plan.KCall:
		return buildCall(node, sp, args)
	}
	return nil, fmt.Errorf("%w expression kind %q", plan.ErrUnsupported, node.Kind)
}

// buildCall is a registry function call; the function must exist here
// and type its arguments as the sender's did.
func buildCall(node *plan.Expr, sp srcpos.Span, args []*Expr) (*Expr, error) {
	f := fn.Lookup(node.Name)
	if f == nil {
		return nil, fmt.Errorf("%w function %q", plan.ErrUnsupported, node.Name)
	}
	// Evaluators index their arguments as the compiler's arity check
	// lets them: a call with too few would panic in a scan worker.
	if n := len(args); n < f.MinArgs || (f.MaxArgs >= 0 && n > f.MaxArgs) {
		return nil, fmt.Errorf("plan: %s expects %s, got %d", node.Name, Arity(f.MinArgs, f.MaxArgs), n)
	}
	types := make([]vector.Type, len(args))
	for i, a := range args {
		if a == nil {
			return nil, fmt.Errorf("plan: call of %s has an absent argument", node.Name)
		}
		types[i] = a.Typ
	}
	rt, err := f.Result(types)
	if err != nil {
		return nil, fmt.Errorf("plan: %s: %w", node.Name, err)
	}
	return CallExpr(node, sp, rt, node.Name, f, args), nil
}

func isCmpOp(op string) bool {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}
