package exec

import (
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/vector"
)

// arithOp is one compiled arithmetic operator: its result type, the
// domain its operands are converted to, and the generated kernels of that
// domain.
type arithOp struct {
	op       string // for the boxed dynamic path only
	res, dom vector.Type
	ints     vector.ArithKernels[int64]
	floats   vector.ArithKernels[float64]
}

// eval computes l op r over the live rows of an n-row batch (every row
// when sel is nil). The result has n rows; those not in sel are
// unspecified, as the batch contract allows.
func (a *arithOp) eval(s *scratch, lv, rv *vector.Vector, n int, sel []int32) *vector.Vector {
	if lv.Type == vector.Null || rv.Type == vector.Null {
		return vector.NewNulls(a.res, n)
	}
	if a.dom == vector.Dynamic {
		return dynRows(n, sel, func(i int) any { return arithAny(a.op, lv.Value(i), rv.Value(i)) })
	}
	valid := andValidSel(lv, rv, n, sel)
	if a.dom == vector.Int {
		l, r := intOperand(s, lv, sel), intOperand(s, rv, sel)
		out := &vector.Vector{Type: a.res, Len: n, Ints: takeInts(s, n)}
		out.Valid = runArith(a.ints, l, r, sel, out.Ints, valid)
		if a.res == vector.DateTime || a.res == vector.TimeSpan {
			out.Valid = nullOverflow(a.op, l, r, out, n, sel)
		}
		return out
	}
	l, r := floatOperand(s, lv, sel), floatOperand(s, rv, sel)
	fl := takeFloats(s, n)
	runArith(a.floats, l, r, sel, fl, nil)
	if a.res != vector.TimeSpan {
		return &vector.Vector{Type: vector.Float, Len: n, Floats: fl, Valid: valid}
	}
	out := &vector.Vector{Type: a.res, Len: n, Ints: takeInts(s, n), Valid: valid}
	row := func(i int) {
		f := fl[i]
		if f >= -9.223372036854775e18 && f <= 9.223372036854775e18 {
			out.Ints[i] = int64(f)
			return
		}
		// A timespan past int64 nanoseconds (or NaN) has no value.
		if out.Valid == nil {
			out.Valid = vector.NewBitmapSet(n)
		}
		out.Valid.Clear(i)
	}
	if sel == nil {
		for i := range fl[:n] {
			row(i)
		}
		return out
	}
	for _, i := range sel {
		row(int(i))
	}
	return out
}

// payload is the element type of the arithmetic kernels.
type payload interface{ int64 | float64 }

// slots returns the payload slice of an int-backed or real vector.
func slots[T payload](v *vector.Vector) []T {
	var z T
	switch any(z).(type) {
	case int64:
		return any(v.Ints).([]T)
	}
	return any(v.Floats).([]T)
}

// runArith runs the kernel for the operands' shapes: a Const vector is
// the kernel's constant k. valid is the rows already null.
func runArith[T payload](k vector.ArithKernels[T], lv, rv *vector.Vector, sel []int32, out []T, valid vector.Bitmap) vector.Bitmap {
	l, r := slots[T](lv), slots[T](rv)
	switch {
	case lv.Const && rv.Const:
		// Two constants reach here only from columns that are constant at
		// run time (literals are folded when planning): broadcast one.
		full := make([]T, len(out))
		for i := range full {
			full[i] = l[0]
		}
		l = full
		fallthrough
	case rv.Const:
		if sel != nil {
			return k.VCSel(l, r[0], sel, out, valid)
		}
		return k.VC(l, r[0], out, valid)
	case lv.Const:
		if sel != nil {
			return k.CVSel(l[0], r, sel, out, valid)
		}
		return k.CV(l[0], r, out, valid)
	}
	if sel != nil {
		return k.VVSel(l, r, sel, out, valid)
	}
	return k.VV(l, r, out, valid)
}

// intOperand reads an operand as int64 payload: datetimes and timespans
// as their nanoseconds, anything else by castVectorSel.
func intOperand(s *scratch, v *vector.Vector, sel []int32) *vector.Vector {
	if v.Type.IsInt64Backed() {
		return v
	}
	return castScratch(s, v, vector.Int, sel)
}

// floatOperand reads an operand as reals: a timespan as float
// nanoseconds, anything else by castVectorSel.
func floatOperand(s *scratch, v *vector.Vector, sel []int32) *vector.Vector {
	if v.Type != vector.TimeSpan {
		return castScratch(s, v, vector.Float, sel)
	}
	rows := v.Len
	if v.Const {
		rows, sel = 1, nil
	}
	out := &vector.Vector{Type: vector.Float, Len: v.Len, Const: v.Const, Valid: v.Valid, Floats: takeFloats(s, rows)}
	if sel == nil {
		for i := 0; i < rows; i++ {
			out.Floats[i] = float64(v.Ints[i])
		}
		return out
	}
	for _, i := range sel {
		out.Floats[i] = float64(v.Ints[i])
	}
	return out
}

// dynRows builds a Dynamic vector of n rows whose live rows hold f(i)
// (nil is null); dead rows are null.
func dynRows(n int, sel []int32, f func(i int) any) *vector.Vector {
	out := vector.New(vector.Dynamic, n)
	if sel == nil {
		for i := 0; i < n; i++ {
			out.AppendValue(f(i))
		}
		return out
	}
	j := 0
	for i := 0; i < n; i++ {
		if j < len(sel) && int(sel[j]) == i {
			j++
			out.AppendValue(f(i))
			continue
		}
		out.AppendNull()
	}
	return out
}

// nullOverflow makes null every row of a datetime or timespan sum,
// difference or product that overflowed int64 nanoseconds: a time moved
// past 2262-04-11 or before 1677-09-21 has no value, and the wrapped one
// would read as a time in the other century.
func nullOverflow(op string, l, r, out *vector.Vector, n int, sel []int32) vector.Bitmap {
	check := fn.AddNanos
	switch op {
	case "+":
	case "-":
		check = fn.SubNanos
	case "*":
		check = fn.MulNanos
	default:
		return out.Valid
	}
	valid := out.Valid
	row := func(i int) {
		if valid != nil && !valid.Get(i) {
			return
		}
		if _, ok := check(l.Int(i), r.Int(i)); ok {
			return
		}
		if valid == nil {
			valid = vector.NewBitmapSet(n)
		}
		valid.Clear(i)
	}
	if sel != nil {
		for _, i := range sel {
			row(int(i))
		}
		return valid
	}
	for i := 0; i < n; i++ {
		row(i)
	}
	return valid
}
