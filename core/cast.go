package core

import (
	"github.com/aplite/aplite/vector"
)

// castVector returns v converted to type t (v itself when it already has
// that type). Constants stay constant and a dictionary-encoded string
// column is converted once per distinct value. Values with no
// representation in t become null: this is APL's implicit coercion, used
// where the planner decided the operand types (for example a string
// status compared with a number).
func castVector(v *vector.Vector, t vector.Type) *vector.Vector {
	if v.Type == t {
		return v
	}
	if v.Type == vector.String && v.Codes != nil && !v.Const {
		dict := vector.New(t, len(v.Dict))
		for _, s := range v.Dict {
			dict.AppendValue(convertValue(s, t))
		}
		out := vector.New(t, v.Len)
		for i := 0; i < v.Len; i++ {
			if v.IsNull(i) {
				out.AppendNull()
				continue
			}
			out.AppendFrom(dict, int(v.Codes[i]))
		}
		return out
	}
	if v.Type == vector.Int && t == vector.Float && !v.Const {
		out := &vector.Vector{Type: vector.Float, Len: v.Len, Valid: v.Valid, Floats: make([]float64, v.Len)}
		for i, x := range v.Ints[:v.Len] {
			out.Floats[i] = float64(x)
		}
		return out
	}
	rows := v.Len
	if v.Const {
		rows = 1
	}
	out := vector.New(t, rows)
	for i := 0; i < rows; i++ {
		if t == vector.Dynamic {
			out.AppendValue(v.Value(i))
			continue
		}
		out.AppendValue(convertValue(v.Value(i), t))
	}
	if v.Const {
		out.Const = true
		out.Len = v.Len
	}
	return out
}

// step returns 0 for a constant (always read slot 0) and 1 otherwise.
func step(v *vector.Vector) int {
	if v.Const {
		return 0
	}
	return 1
}

// andValid returns the validity of a row-wise binary operation: a row is
// valid when both inputs are. The result is nil when no row can be null.
func andValid(l, r *vector.Vector, n int) vector.Bitmap {
	if !l.HasNulls() && !r.HasNulls() {
		return nil
	}
	out := vector.NewBitmap(n)
	for i := 0; i < n; i++ {
		if !l.IsNull(i) && !r.IsNull(i) {
			out.Set(i)
		}
	}
	return out
}

// unifyNumeric picks the arithmetic domain of two numeric-ish types.
func unifyNumeric(a, b vector.Type) vector.Type {
	if a == vector.Int && b == vector.Int {
		return vector.Int
	}
	return vector.Float
}
