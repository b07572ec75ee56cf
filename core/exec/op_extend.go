package exec

import (
	"math"

	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/vector"
)

// extendStage adds computed columns, or replaces a column of the same
// name. With valid set (extend-valid) a new value replaces the old only
// when it is "valid": a non-empty string, array or bag, a number that is
// not 0, NaN or ±Inf, a true bool.
type extendStage struct {
	In, Sch Schema
	Exprs   []*Expr
	Slots   []int // output column of each expression
	Valid   bool
}

// Out implements Stage.
func (s *extendStage) Out() Schema { return s.Sch }

func (s *extendStage) keepsNothing() {}

// Apply implements streamStage.
func (s *extendStage) Apply(x *Ctx, b *Batch) (*Batch, error) {
	if Sparse(b) {
		b = narrow(b)
	}
	nb := withColumns(b, make([]*vector.Vector, len(s.Sch)-len(s.In))...)
	for i, e := range s.Exprs {
		v, err := e.Run(x, nb)
		if err != nil {
			return nil, err
		}
		slot := s.Slots[i]
		switch {
		case !s.Valid:
		case slot < len(s.In):
			old, err := nb.Col(slot)
			if err != nil {
				return nil, err
			}
			v = mergeValid(old, v, nb.N)
		case nb.Cols[slot] != nil: // a new field assigned twice
			v = mergeValid(nb.Cols[slot], v, nb.N)
		default:
			// A new field has no old value to keep: an invalid value is
			// null, as Axiom's page shows ("1Paris" extracts "" and gives
			// NULL), not the "" or 0 itself.
			v = nullInvalid(v, nb.N)
		}
		nb.Cols[slot] = v
	}
	return nb, nil
}

// mergeValid keeps old where the new value is not valid (extend-valid).
func mergeValid(old, nv *vector.Vector, n int) *vector.Vector {
	out := vector.New(old.Type, n)
	for i := 0; i < n; i++ {
		if isValidValue(nv.Value(i)) {
			out.AppendValue(ConvertValue(nv.Value(i), old.Type))
		} else {
			out.AppendFrom(old, i)
		}
	}
	return out
}

// nullInvalid replaces the values of nv that are not valid with null.
func nullInvalid(nv *vector.Vector, n int) *vector.Vector {
	out := vector.New(nv.Type, n)
	for i := 0; i < n; i++ {
		if x := nv.Value(i); isValidValue(x) {
			out.AppendValue(x)
		} else {
			out.AppendNull()
		}
	}
	return out
}

// isValidValue is extend-valid's test.
func isValidValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case int64:
		return x != 0
	case float64:
		return x != 0 && !math.IsNaN(x) && !math.IsInf(x, 0)
	case bool:
		return x
	}
	return true
}

// castExpr converts an expression's result to type t.
func castExpr(e *Expr, t vector.Type) *Expr {
	if e.Typ == t {
		return e
	}
	inner := e
	if e.IsConst() {
		out := constVecExpr(castVector(e.Cnst, t), e.Span)
		out.Name = e.Name
		return out
	}
	out := &Expr{Typ: t, Col: -1, Span: e.Span, Name: e.Name, Node: nodeOf(plan.KCast, t, "", e.Span, e)}
	out.Eval = func(x *Ctx, b *Batch) (*vector.Vector, error) {
		v, err := inner.Run(x, b)
		if err != nil {
			return nil, err
		}
		return castVectorSel(v, t, b.Sel), nil
	}
	return out
}
