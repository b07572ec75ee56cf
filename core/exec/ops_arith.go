package exec

import (
	"time"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// ArithType returns the result type of l op r, and the domain both
// operands are converted to before the kernel runs.
func ArithType(op string, l, r vector.Type) (res, dom vector.Type, ok bool) {
	switch {
	case l == vector.Null || r == vector.Null:
		if l == vector.Null {
			return r, r, true
		}
		return l, l, true
	case l == vector.Dynamic || r == vector.Dynamic:
		return vector.Dynamic, vector.Dynamic, true
	case l.IsNumeric() && r.IsNumeric():
		d := unifyNumeric(l, r)
		return d, d, true
	}
	dt, ts := vector.DateTime, vector.TimeSpan
	switch op {
	case "+":
		switch {
		case l == dt && r == ts, l == ts && r == dt:
			return dt, vector.Int, true
		case l == ts && r == ts:
			return ts, vector.Int, true
		}
	case "-":
		switch {
		case l == dt && r == dt:
			return ts, vector.Int, true
		case l == dt && r == ts:
			return dt, vector.Int, true
		case l == ts && r == ts:
			return ts, vector.Int, true
		}
	case "*":
		switch {
		case l == ts && r == vector.Int, l == vector.Int && r == ts:
			return ts, vector.Int, true
		case l == ts && r == vector.Float, l == vector.Float && r == ts:
			return ts, vector.Float, true
		}
	case "/":
		switch {
		case l == ts && r == ts:
			return vector.Float, vector.Float, true
		case l == ts && r == vector.Int:
			return ts, vector.Int, true
		case l == ts && r == vector.Float:
			return ts, vector.Float, true
		}
	case "%":
		if l == ts && r == ts {
			return ts, vector.Int, true
		}
	}
	return 0, 0, false
}

// arithExpr is the evaluator of l op r with result type res computed in
// domain dom (arithType), its kernels picked here, once.
func arithExpr(node *plan.Expr, sp srcpos.Span, op string, res, dom vector.Type, l, r *Expr) *Expr {
	a := &arithOp{op: op, res: res, dom: dom, ints: vector.ArithInt64[op], floats: vector.ArithFloat64[op]}
	e := &Expr{Typ: res, Col: -1, Span: sp, Node: node}
	e.Eval = binaryEval(l, r, func(x *Ctx, bt *Batch, lv, rv *vector.Vector) (*vector.Vector, error) {
		return a.eval(bt.scratch, lv, rv, bt.N, bt.Sel), nil
	})
	return e
}

// arithAny is the boxed slow path for dynamic operands.
func arithAny(op string, a, b any) any {
	if a == nil || b == nil {
		return nil
	}
	ai, aInt := a.(int64)
	bi, bInt := b.(int64)
	if aInt && bInt {
		switch op {
		case "+":
			return ai + bi
		case "-":
			return ai - bi
		case "*":
			return ai * bi
		case "/":
			if bi == 0 {
				return nil
			}
			return ai / bi
		case "%":
			if bi == 0 {
				return nil
			}
			return ai % bi
		}
	}
	if at, ok := a.(time.Time); ok {
		switch bv := b.(type) {
		case time.Duration:
			if op == "+" {
				return at.Add(bv)
			}
			if op == "-" {
				return at.Add(-bv)
			}
		case time.Time:
			if op == "-" {
				return at.Sub(bv)
			}
		}
		return nil
	}
	af, ok1 := fn.DynFloat(a)
	bf, ok2 := fn.DynFloat(b)
	if !ok1 || !ok2 {
		return nil
	}
	out := make([]float64, 1)
	vector.ArithFloat64[op].VC([]float64{af}, bf, out, nil)
	return out[0]
}
