package core

import (
	"math"
	"time"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/parser"
	"github.com/aplite/aplite/vector"
)

// arithType returns the result type of l op r, and the domain both
// operands are converted to before the kernel runs.
func arithType(op string, l, r vector.Type) (res, dom vector.Type, ok bool) {
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

// arith compiles + - * / %.
func (c *compiler) arith(b *parser.BinaryExpr, l, r *expr) (*expr, error) {
	res, dom, ok := arithType(b.Op, l.typ, r.typ)
	if !ok {
		return nil, semErr(b, "operator %s is not defined for %s and %s", b.Op, l.typ, r.typ)
	}
	op := b.Op
	e := &expr{typ: res, col: -1, span: b.Sp}
	e.eval = func(x *execCtx, bt *batch) (*vector.Vector, error) {
		lv, err := l.run(x, bt)
		if err != nil {
			return nil, err
		}
		rv, err := r.run(x, bt)
		if err != nil {
			return nil, err
		}
		return arithVectors(op, res, dom, lv, rv, bt.N), nil
	}
	if l.isConst() && r.isConst() {
		return fold(c.x, e)
	}
	return e, nil
}

// arithVectors computes l op r over n rows.
func arithVectors(op string, res, dom vector.Type, lv, rv *vector.Vector, n int) *vector.Vector {
	if lv.Type == vector.Null || rv.Type == vector.Null {
		return vector.NewNulls(res, n)
	}
	if dom == vector.Dynamic {
		out := vector.New(vector.Dynamic, n)
		for i := 0; i < n; i++ {
			out.AppendValue(arithAny(op, lv.Value(i), rv.Value(i)))
		}
		return out
	}
	valid := andValid(lv, rv, n)
	switch dom {
	case vector.Int:
		// timespan*float and friends arrive here as Int domain only when both
		// sides are int64-backed.
		l, r := castInt64(lv), castInt64(rv)
		out := &vector.Vector{Type: res, Len: n, Ints: make([]int64, n), Valid: valid}
		if op == "/" || op == "%" {
			out.Valid = intDivide(op, l, r, step(lv), step(rv), out.Ints, valid)
		} else {
			arithInts(op, l, r, step(lv), step(rv), out.Ints)
		}
		return out
	default:
		lf, rf := castVector(lv, vector.Float), castVector(rv, vector.Float)
		if lv.Type == vector.TimeSpan {
			lf = tsAsFloat(lv)
		}
		if rv.Type == vector.TimeSpan {
			rf = tsAsFloat(rv)
		}
		fl := make([]float64, n)
		arithFloats(op, lf.Floats, rf.Floats, step(lf), step(rf), fl)
		if res == vector.TimeSpan {
			out := &vector.Vector{Type: res, Len: n, Ints: make([]int64, n), Valid: valid}
			for i, f := range fl {
				out.Ints[i] = int64(f)
			}
			return out
		}
		return &vector.Vector{Type: vector.Float, Len: n, Floats: fl, Valid: valid}
	}
}

// castInt64 returns the int64 payload of an int-backed vector.
func castInt64(v *vector.Vector) []int64 {
	if v.Type.IsInt64Backed() {
		return v.Ints
	}
	return castVector(v, vector.Int).Ints
}

// tsAsFloat reads a timespan vector as float nanoseconds.
func tsAsFloat(v *vector.Vector) *vector.Vector {
	rows := v.Len
	if v.Const {
		rows = 1
	}
	out := &vector.Vector{Type: vector.Float, Len: v.Len, Const: v.Const, Valid: v.Valid, Floats: make([]float64, rows)}
	for i := 0; i < rows; i++ {
		out.Floats[i] = float64(v.Ints[i])
	}
	return out
}

// arithCommon is the + - * kernel shared by ints and reals; ls/rs are 0
// for a constant operand.
func arithCommon[T int64 | float64](op string, l, r []T, ls, rs int, out []T) {
	switch op {
	case "+":
		for i := range out {
			out[i] = l[i*ls] + r[i*rs]
		}
	case "-":
		for i := range out {
			out[i] = l[i*ls] - r[i*rs]
		}
	case "*":
		for i := range out {
			out[i] = l[i*ls] * r[i*rs]
		}
	}
}

func arithInts(op string, l, r []int64, ls, rs int, out []int64) {
	arithCommon(op, l, r, ls, rs, out)
}

// intDivide divides integers the way KQL does (truncating), with a zero
// divisor giving null instead of a crash.
func intDivide(op string, l, r []int64, ls, rs int, out []int64, valid vector.Bitmap) vector.Bitmap {
	for i := range out {
		d := r[i*rs]
		if d == 0 {
			if valid == nil {
				valid = vector.NewBitmapSet(len(out))
			}
			valid.Clear(i)
			continue
		}
		if op == "/" {
			out[i] = l[i*ls] / d
		} else {
			out[i] = l[i*ls] % d
		}
	}
	return valid
}

func arithFloats(op string, l, r []float64, ls, rs int, out []float64) {
	switch op {
	case "+", "-", "*":
		arithCommon(op, l, r, ls, rs, out)
	case "/":
		for i := range out {
			out[i] = l[i*ls] / r[i*rs]
		}
	case "%":
		for i := range out {
			out[i] = math.Mod(l[i*ls], r[i*rs])
		}
	}
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
	arithFloats(op, []float64{af}, []float64{bf}, 0, 0, out)
	return out[0]
}
