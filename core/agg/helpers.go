package agg

import (
	"fmt"
	"math"
	"time"

	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/vector"
)

// This file holds what many aggregations share: argument checks, the
// conversion of boxed constants, null tests over validity bitmaps, and the
// building of result vectors from flat per-group arrays.

// validAt reports whether physical row r of a vector with validity bitmap
// valid holds a value. It is small enough to be inlined into the hot loops.
func validAt(valid vector.Bitmap, r int) bool {
	return valid == nil || valid[r>>6]&(1<<(uint(r)&63)) != 0
}

// constValue returns the single value of a Const vector and whether it is
// non-null.
func constValid(v *vector.Vector) bool {
	return v.Type != vector.Null && (v.Valid == nil || v.Valid.Get(0))
}

// allNull reports whether a vector can hold no value at all (an untyped
// null column, or a null constant), so Update can return at once.
func allNull(v *vector.Vector) bool {
	return v.Type == vector.Null || (v.Const && !constValid(v))
}

// physRow maps update row k to the physical row of the argument vectors.
func physRow(sel []int32, k int) int {
	if sel == nil {
		return k
	}
	return int(sel[k])
}

// liveRow maps update row k to the physical row of v (row 0 of a
// constant) and reports whether that row holds a value, not a null.
func liveRow(v *vector.Vector, sel []int32, k int) (int, bool) {
	r := physRow(sel, k)
	if v.Const {
		r = 0
	}
	return r, validAt(v.Valid, r)
}

// growInt64 and friends extend a per-group slice to n entries, keeping
// amortised doubling so Grow called once per batch stays cheap.
func growInt64(s []int64, n int) []int64 {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	ns := make([]int64, n, max(n, 2*cap(s)))
	copy(ns, s)
	return ns
}

func growFloat64(s []float64, n int) []float64 {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	ns := make([]float64, n, max(n, 2*cap(s)))
	copy(ns, s)
	return ns
}

func growBool(s []bool, n int) []bool {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	ns := make([]bool, n, max(n, 2*cap(s)))
	copy(ns, s)
	return ns
}

// growSlice extends a slice of per-group values (sets, lists, sketches).
func growSlice[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	ns := make([]T, n, max(n, 2*cap(s)))
	copy(ns, s)
	return ns
}

// intsResult builds an n-row vector of type t from per-group int64 values;
// has[g] false makes row g null (has nil means every row has a value).
func intsResult(t vector.Type, vals []int64, has []bool, n int) *vector.Vector {
	out := &vector.Vector{Type: t, Len: n, Ints: make([]int64, n)}
	copy(out.Ints, vals)
	out.Valid = nullMask(has, n)
	return out
}

// floatsResult is intsResult for Float.
func floatsResult(vals []float64, has []bool, n int) *vector.Vector {
	out := &vector.Vector{Type: vector.Float, Len: n, Floats: make([]float64, n)}
	copy(out.Floats, vals)
	out.Valid = nullMask(has, n)
	return out
}

// nullMask returns the validity bitmap for has, or nil when every one of
// the n groups has a value.
func nullMask(has []bool, n int) vector.Bitmap {
	if has == nil {
		return nil
	}
	all := true
	for g := 0; g < n; g++ {
		if g >= len(has) || !has[g] {
			all = false
			break
		}
	}
	if all {
		return nil
	}
	bm := vector.NewBitmap(n)
	for g := 0; g < n && g < len(has); g++ {
		if has[g] {
			bm.Set(g)
		}
	}
	return bm
}

// dynResult builds an n-row Dynamic vector; a nil value is a null row.
func dynResult(vals []any, n int) *vector.Vector {
	out := vector.New(vector.Dynamic, n)
	for g := 0; g < n; g++ {
		if g < len(vals) {
			out.AppendDyn(vals[g])
		} else {
			out.AppendNull()
		}
	}
	return out
}

// boxInt converts an int64 payload of type t to the value a Dynamic array
// holds (time.Time for datetime, time.Duration for timespan).
func boxInt(t vector.Type, x int64) any {
	switch t {
	case vector.DateTime:
		return time.Unix(0, x).UTC()
	case vector.TimeSpan:
		return time.Duration(x)
	}
	return x
}

// constInt reads a constant argument as an integer (long or a whole real).
func constInt(pos int, c any) (int64, error) {
	switch v := c.(type) {
	case int64:
		return v, nil
	case int:
		return int64(v), nil
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			return int64(v), nil
		}
	}
	return 0, fmt.Errorf("argument %d must be a constant integer, got %v", pos+1, c)
}

// constFloat reads a constant argument as a number.
func constFloat(pos int, c any) (float64, error) {
	switch v := c.(type) {
	case int64:
		return float64(v), nil
	case int:
		return float64(v), nil
	case float64:
		return v, nil
	}
	return 0, fmt.Errorf("argument %d must be a constant number, got %v", pos+1, c)
}

// dynFloat converts a dynamic value to a number when it is one, or is a
// string that toreal reads as one (the same field often arrives as 200
// and as "200").
func dynFloat(x any) (float64, bool) {
	switch v := x.(type) {
	case string:
		return fn.ParseFloat(v)
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case int:
		return float64(v), true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	case time.Duration:
		return float64(v), true
	}
	return 0, false
}

// DynReal reads a dynamic value as the aggregations do (dynFloat), for
// the engine's unboxed side of mixed columns (vector.Mixed.Real).
func DynReal(x any) (float64, bool) { return dynFloat(x) }

// wantBool is the check every -if variant applies to its predicate.
func wantBool(pos int, t vector.Type) error {
	switch t {
	case vector.Bool, vector.Null, vector.Dynamic:
		return nil
	}
	return fmt.Errorf("argument %d (the predicate) must be bool, got %s", pos+1, t)
}

// isOrdered reports whether min/max/arg_min/percentile can compare values
// of type t.
func isOrdered(t vector.Type) bool {
	switch t {
	case vector.Int, vector.Float, vector.String, vector.DateTime, vector.TimeSpan, vector.Null:
		return true
	}
	return false
}

// fixed returns a Result function for aggregations whose output type does
// not depend on the input.
func fixed(t vector.Type) func([]vector.Type) ([]vector.Type, error) {
	return func([]vector.Type) ([]vector.Type, error) { return []vector.Type{t}, nil }
}

// one wraps a single output type for Result.
func one(t vector.Type) []vector.Type { return []vector.Type{t} }

// nan returns a quiet NaN without importing math in every file.
func nan() float64 { return math.NaN() }
