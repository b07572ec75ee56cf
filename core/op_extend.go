package core

import (
	"fmt"
	"math"

	"github.com/aplite/aplite/core/plan"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// extendStage adds computed columns, or replaces a column of the same
// name. With valid set (extend-valid) a new value replaces the old only
// when it is "valid": a non-empty string, array or bag, a number that is
// not 0, NaN or ±Inf, a true bool.
type extendStage struct {
	in, sch schema
	exprs   []*expr
	slots   []int // output column of each expression
	valid   bool
}

func (p *planner) planExtend(in schema, op *parser.ExtendOp) (stage, error) {
	st := &extendStage{in: in, sch: append(schema(nil), in...), valid: op.Valid}
	for _, ne := range op.Cols {
		// Each expression sees the columns added before it.
		c := p.compilerFor(st.sch)
		e, err := c.compile(ne.Expr)
		if err != nil {
			return nil, err
		}
		name := ne.Name
		if name == "" {
			name = e.name
			if name == "" || e.col < 0 {
				name = nextColumnName(st.sch)
			}
		}
		slot := st.sch.index(name)
		if slot < 0 {
			slot = len(st.sch)
			st.sch = append(st.sch, colDef{name, e.typ})
		} else if op.Valid && st.sch[slot].Type != e.typ {
			e = castExpr(e, st.sch[slot].Type)
		} else {
			st.sch[slot].Type = e.typ
		}
		st.exprs = append(st.exprs, e)
		st.slots = append(st.slots, slot)
	}
	return st, nil
}

// nextColumnName returns Column1, Column2, ... not yet in s (KQL's names
// for unnamed computed columns).
func nextColumnName(s schema) string {
	for i := 1; ; i++ {
		n := fmt.Sprintf("Column%d", i)
		if s.index(n) < 0 {
			return n
		}
	}
}

func (s *extendStage) out() schema { return s.sch }

func (s *extendStage) keepsNothing() {}

func (s *extendStage) apply(x *execCtx, b *batch) (*batch, error) {
	if sparse(b) {
		b = narrow(b)
	}
	nb := withColumns(b, make([]*vector.Vector, len(s.sch)-len(s.in))...)
	for i, e := range s.exprs {
		v, err := e.run(x, nb)
		if err != nil {
			return nil, err
		}
		slot := s.slots[i]
		switch {
		case !s.valid:
		case slot < len(s.in):
			old, err := nb.col(slot)
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
			out.AppendValue(convertValue(nv.Value(i), old.Type))
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
func castExpr(e *expr, t vector.Type) *expr {
	if e.typ == t {
		return e
	}
	inner := e
	if e.isConst() {
		out := constVecExpr(castVector(e.cnst, t), e.span)
		out.name = e.name
		return out
	}
	out := &expr{typ: t, col: -1, span: e.span, name: e.name, node: nodeOf(plan.KCast, t, "", e.span, e)}
	out.eval = func(x *execCtx, b *batch) (*vector.Vector, error) {
		v, err := inner.run(x, b)
		if err != nil {
			return nil, err
		}
		return castVectorSel(v, t, b.Sel), nil
	}
	return out
}
