package exec

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
	return castVectorSel(v, t, nil)
}

// castVectorSel is castVector over the live rows sel of a batch (all
// rows when nil); the other rows of the result are unspecified.
func castVectorSel(v *vector.Vector, t vector.Type, sel []int32) *vector.Vector {
	return castScratch(nil, v, t, sel)
}

// castScratch is castVectorSel writing a long column's conversion to
// reals, the common cast in arithmetic, into a buffer from s.
func castScratch(s *scratch, v *vector.Vector, t vector.Type, sel []int32) *vector.Vector {
	if v.Type == t {
		return v
	}
	if v.Const {
		sel = nil
	}
	if v.Type == vector.String && v.Codes != nil && !v.Const {
		dict := vector.New(t, len(v.Dict))
		for _, s := range v.Dict {
			dict.AppendValue(ConvertValue(s, t))
		}
		out := vector.New(t, v.Len)
		eachRow(v.Len, sel, out.AppendNull, func(i int) {
			if v.IsNull(i) {
				out.AppendNull()
				return
			}
			out.AppendFrom(dict, int(v.Codes[i]))
		})
		return out
	}
	if v.Type == vector.Int && t == vector.Float && !v.Const {
		out := &vector.Vector{Type: vector.Float, Len: v.Len, Valid: v.Valid, Floats: takeFloats(s, v.Len)}
		if sel != nil {
			for _, i := range sel {
				out.Floats[i] = float64(v.Ints[i])
			}
			return out
		}
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
	eachRow(rows, sel, out.AppendNull, func(i int) {
		if t == vector.Dynamic {
			out.AppendValue(v.Value(i))
			return
		}
		out.AppendValue(ConvertValue(v.Value(i), t))
	})
	if v.Const {
		out.Const = true
		out.Len = v.Len
	}
	return out
}

// eachRow calls live(i) for each row i in [0, n) that sel lists (every
// row when sel is nil) and dead() for the others, in row order, so an
// appending kernel keeps its rows in place while converting live rows only.
func eachRow(n int, sel []int32, dead func(), live func(i int)) {
	if sel == nil {
		for i := 0; i < n; i++ {
			live(i)
		}
		return
	}
	j := 0
	for i := 0; i < n; i++ {
		if j < len(sel) && int(sel[j]) == i {
			j++
			live(i)
			continue
		}
		dead()
	}
}

// step returns 0 for a constant (always read slot 0) and 1 otherwise.
func step(v *vector.Vector) int {
	if v.Const {
		return 0
	}
	return 1
}

// andValidSel returns the validity of a row-wise binary operation over
// the live rows sel of n (all when nil): a row is valid when both inputs
// are; the bits of other rows are unspecified. The result is nil when no
// row can be null.
func andValidSel(l, r *vector.Vector, n int, sel []int32) vector.Bitmap {
	if !l.HasNulls() && !r.HasNulls() {
		return nil
	}
	out := vector.NewBitmap(n)
	if sel != nil {
		for _, i := range sel {
			if !l.IsNull(int(i)) && !r.IsNull(int(i)) {
				out.Set(int(i))
			}
		}
		return out
	}
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
