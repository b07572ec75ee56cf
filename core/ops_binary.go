package core

import (
	"cmp"
	"strings"
	"time"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// binary dispatches a BinaryExpr to the family of its operator.
func (c *compiler) binary(b *parser.BinaryExpr) (*expr, error) {
	l, err := c.compile(b.L)
	if err != nil {
		return nil, err
	}
	r, err := c.compile(b.R)
	if err != nil {
		return nil, err
	}
	switch b.Op {
	case "and", "or":
		return c.logical(b, l, r)
	case "==", "!=", "<", "<=", ">", ">=":
		return c.comparison(b, l, r)
	case "+", "-", "*", "/", "%":
		return c.arith(b, l, r)
	case ":":
		return c.stringOp(&parser.BinaryExpr{Sp: b.Sp, Op: "has", L: b.L, R: b.R}, l, r) // the plan says has
	}
	if strings.Contains(b.Op, "regex") || isStringOp(b.Op) {
		return c.stringOp(b, l, r)
	}
	return nil, semErr(b, "unknown operator %s", b.Op)
}

func isStringOp(op string) bool {
	_, _, ok := lookupStringOp(op)
	return ok
}

// compareAny orders two boxed values for dynamic comparisons and sorting:
// numbers numerically, strings lexically, a string against a number as a
// number when it parses. ok is false when the values are not comparable.
func compareAny(a, b any) (int, bool) {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), true
		}
	case bool:
		if y, ok := b.(bool); ok {
			return cmpBool(x, y), true
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Compare(y), true
		}
		if y, ok := b.(string); ok {
			if t, ok := parseDateTime(y); ok {
				return x.Compare(t), true
			}
		}
	case time.Duration:
		if y, ok := b.(time.Duration); ok {
			return cmp.Compare(x, y), true
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y), true
		}
	}
	af, ok1 := fn.DynFloat(a)
	bf, ok2 := fn.DynFloat(b)
	if ok1 && ok2 {
		return cmp.Compare(af, bf), true
	}
	if isComposite(a) || isComposite(b) {
		as, bs := valueString(a), valueString(b)
		return strings.Compare(as, bs), true
	}
	return 0, false
}

func isComposite(v any) bool {
	switch v.(type) {
	case []any, map[string]any:
		return true
	}
	return false
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// dynIndex compiles x[key] and x.name over dynamic values: a string key
// reads a property, an integer an array element (negative from the end).
func (c *compiler) dynIndex(n parser.Node, x, key *expr) (*expr, error) {
	if x.typ != vector.Dynamic && x.typ != vector.Null {
		return nil, semErr(n, "cannot index into a value of type %s", x.typ)
	}
	e := indexExpr(nodeOf(plan.KIndex, vector.Dynamic, "", n.Span(), x, key), n.Span(), x, key)
	if x.isConst() && key.isConst() {
		return fold(c.x, e)
	}
	return e, nil
}

// indexExpr is the evaluator of x[key] over dynamic values.
func indexExpr(node *plan.Expr, sp srcpos.Span, x, key *expr) *expr {
	e := &expr{typ: vector.Dynamic, col: -1, span: sp, node: node}
	e.eval = func(xc *execCtx, b *batch) (*vector.Vector, error) {
		xv, err := x.run(xc, b)
		if err != nil {
			return nil, err
		}
		kv, err := key.run(xc, b)
		if err != nil {
			return nil, err
		}
		out := vector.New(vector.Dynamic, b.N)
		for i := 0; i < b.N; i++ {
			out.AppendDyn(indexValue(xv.Value(i), kv.Value(i)))
		}
		return out, nil
	}
	return e
}

// indexValue reads one property or element of a dynamic value.
func indexValue(v, k any) any {
	switch c := v.(type) {
	case map[string]any:
		if s, ok := k.(string); ok {
			return c[s]
		}
	case []any:
		var i int64
		switch kk := k.(type) {
		case int64:
			i = kk
		case float64:
			i = int64(kk)
		default:
			return nil
		}
		if i < 0 {
			i += int64(len(c))
		}
		if i < 0 || i >= int64(len(c)) {
			return nil
		}
		return c[i]
	case string:
		// A JSON text in a string column can be indexed like its parsed value.
		if len(c) > 0 && (c[0] == '{' || c[0] == '[') {
			return indexValue(parseJSONValue(c), k)
		}
	}
	return nil
}
