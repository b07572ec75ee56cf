package exec

import (
	"cmp"
	"strings"
	"time"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/internal/srcpos"
	"github.com/aplite/aplite/vector"
)

// CompareAny orders two boxed values for dynamic comparisons and sorting:
// numbers numerically, strings lexically, a string against a number as a
// number when it parses. ok is false when the values are not comparable.
func CompareAny(a, b any) (int, bool) {
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
		as, bs := ValueString(a), ValueString(b)
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

// indexExpr is the evaluator of x[key] over dynamic values.
func indexExpr(node *plan.Expr, sp srcpos.Span, x, key *Expr) *Expr {
	e := &Expr{Typ: vector.Dynamic, Col: -1, Span: sp, Node: node}
	e.Eval = func(xc *Ctx, b *Batch) (*vector.Vector, error) {
		xv, err := x.Run(xc, b)
		if err != nil {
			return nil, err
		}
		kv, err := key.Run(xc, b)
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

// binaryEval is the evaluator of a binary operator: it runs l and r over
// the batch, then f over their vectors.
func binaryEval(l, r *Expr, f func(x *Ctx, bt *Batch, lv, rv *vector.Vector) (*vector.Vector, error)) func(*Ctx, *Batch) (*vector.Vector, error) {
	return func(x *Ctx, bt *Batch) (*vector.Vector, error) {
		lv, err := l.Run(x, bt)
		if err != nil {
			return nil, err
		}
		rv, err := r.Run(x, bt)
		if err != nil {
			return nil, err
		}
		return f(x, bt, lv, rv)
	}
}
