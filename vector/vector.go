package vector

import (
	"time"
)

// Vector is one column of Len values of a single Type.
//
// Exactly one payload slice is used, chosen by Type:
//
//	Bool                      Bools
//	Int, DateTime, TimeSpan   Ints (DateTime: ns since epoch UTC; TimeSpan: ns)
//	Float                     Floats
//	String                    Strs, or Dict+Codes when dictionary encoded
//	Dynamic                   Dyns (nil, bool, int64, float64, string,
//	                          []any, map[string]any, time.Time, time.Duration)
//	Null                      none: every row is null
//
// Valid is the validity bitmap: nil means every row holds a value;
// otherwise bit i is set when row i is not null. The payload slot of a null
// row holds the zero value, so kernels may compute over it and mask after.
//
// A Const vector has one physical value (index 0) that stands for all Len
// rows; the accessors handle it, hot kernels special-case it.
//
// Vectors are built by appending and treated as immutable once handed to
// another operator: an operator that wants to change a column makes a new
// Vector (it may share payload slices it does not modify).
type Vector struct {
	Type  Type
	Len   int
	Const bool
	Valid Bitmap

	Bools  []bool
	Ints   []int64
	Floats []float64
	Strs   []string
	Dict   []string
	Codes  []uint32
	Dyns   []any

	// Mixed, on a Dynamic vector, is the unboxed side of its number rows
	// (mixed.go); read it through Mix.
	Mixed *Mixed

	// SmallCodes and SmallVals, on a long-like or dictionary-encoded
	// vector of few distinct values, are its one-byte side (small.go);
	// read them through Small.
	SmallCodes []uint8
	SmallVals  []int64
}

// New returns an empty vector of type t with room for capacity rows.
func New(t Type, capacity int) *Vector {
	v := &Vector{Type: t}
	switch t {
	case Bool:
		v.Bools = make([]bool, 0, capacity)
	case Int, DateTime, TimeSpan:
		v.Ints = make([]int64, 0, capacity)
	case Float:
		v.Floats = make([]float64, 0, capacity)
	case String:
		v.Strs = make([]string, 0, capacity)
	case Dynamic:
		v.Dyns = make([]any, 0, capacity)
	}
	return v
}

// NewNulls returns a vector of n nulls of type t.
func NewNulls(t Type, n int) *Vector {
	v := NewConst(t, nil, n)
	return v
}

// NewConst returns a constant vector: value (boxed as Value returns it, nil
// for null) repeated n times.
func NewConst(t Type, value any, n int) *Vector {
	v := New(t, 1)
	v.AppendValue(value)
	v.Const = true
	v.Len = n
	return v
}

// idx maps a logical row to its physical slot.
func (v *Vector) idx(i int) int {
	if v.Const {
		return 0
	}
	return i
}

// IsNull reports whether row i is null.
func (v *Vector) IsNull(i int) bool {
	if v.Type == Null {
		return true
	}
	return v.Valid != nil && !v.Valid.Get(v.idx(i))
}

// HasNulls reports whether any row may be null (a cheap, conservative test).
func (v *Vector) HasNulls() bool { return v.Type == Null || v.Valid != nil }

// Bool returns row i of a Bool vector.
func (v *Vector) Bool(i int) bool { return v.Bools[v.idx(i)] }

// Int returns row i of an Int, DateTime or TimeSpan vector.
func (v *Vector) Int(i int) int64 { return v.Ints[v.idx(i)] }

// Float returns row i of a Float vector.
func (v *Vector) Float(i int) float64 { return v.Floats[v.idx(i)] }

// Str returns row i of a String vector, plain or dictionary encoded.
func (v *Vector) Str(i int) string {
	if v.Codes != nil {
		return v.Dict[v.Codes[v.idx(i)]]
	}
	return v.Strs[v.idx(i)]
}

// Dyn returns row i of a Dynamic vector.
func (v *Vector) Dyn(i int) any { return v.Dyns[v.idx(i)] }

// Value returns row i boxed: nil for null, else bool, int64, float64,
// string, time.Time (UTC) for datetime, time.Duration for timespan, or the
// dynamic value itself.
func (v *Vector) Value(i int) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.Type {
	case Bool:
		return v.Bool(i)
	case Int:
		return v.Int(i)
	case Float:
		return v.Float(i)
	case String:
		return v.Str(i)
	case DateTime:
		return time.Unix(0, v.Int(i)).UTC()
	case TimeSpan:
		return time.Duration(v.Int(i))
	case Dynamic:
		return v.Dyn(i)
	}
	return nil
}

// markNull records that the row just appended is null.
func (v *Vector) markNull() {
	n := v.Len // index of the appended row
	if v.Valid == nil {
		v.Valid = NewBitmapSet(n + 1)
	} else {
		v.Valid = v.Valid.Grow(n + 1)
	}
	v.Valid.Clear(n)
}

// markValid keeps the bitmap, if any, in step with an appended value.
func (v *Vector) markValid() {
	if v.Valid != nil {
		v.Valid = v.Valid.Grow(v.Len + 1)
		v.Valid.Set(v.Len)
	}
}

// AppendNull appends a null row.
func (v *Vector) AppendNull() {
	switch v.Type {
	case Bool:
		v.Bools = append(v.Bools, false)
	case Int, DateTime, TimeSpan:
		v.Ints = append(v.Ints, 0)
	case Float:
		v.Floats = append(v.Floats, 0)
	case String:
		if v.Codes != nil {
			v.Codes = append(v.Codes, 0)
			if len(v.Dict) == 0 {
				v.Dict = append(v.Dict, "")
			}
		} else {
			v.Strs = append(v.Strs, "")
		}
	case Dynamic:
		v.Dyns = append(v.Dyns, nil)
	case Null:
		v.Len++
		return
	}
	v.markNull()
	v.Len++
}

// AppendBool appends a value to a Bool vector.
func (v *Vector) AppendBool(x bool) { v.markValid(); v.Bools = append(v.Bools, x); v.Len++ }

// AppendInt appends a value to an Int, DateTime or TimeSpan vector.
func (v *Vector) AppendInt(x int64) { v.markValid(); v.Ints = append(v.Ints, x); v.Len++ }

// AppendFloat appends a value to a Float vector.
func (v *Vector) AppendFloat(x float64) { v.markValid(); v.Floats = append(v.Floats, x); v.Len++ }

// AppendStr appends a value to a plain (not dictionary encoded) String vector.
func (v *Vector) AppendStr(x string) { v.markValid(); v.Strs = append(v.Strs, x); v.Len++ }

// AppendDyn appends a value to a Dynamic vector; a nil value is a null row.
func (v *Vector) AppendDyn(x any) {
	if x == nil {
		v.AppendNull()
		return
	}
	v.markValid()
	v.Dyns = append(v.Dyns, x)
	v.Len++
}

// AppendValue appends a boxed value (as Value returns it). It converts
// between the numeric and time representations where the meaning is
// unambiguous and appends null for a value it cannot represent, so callers
// must type-check first when a silent null would be wrong.
func (v *Vector) AppendValue(x any) {
	if x == nil {
		v.AppendNull()
		return
	}
	if v.Codes != nil {
		v.Decode()
	}
	switch v.Type {
	case Bool:
		if b, ok := x.(bool); ok {
			v.AppendBool(b)
			return
		}
	case Int, DateTime, TimeSpan:
		switch t := x.(type) {
		case int64:
			v.AppendInt(t)
			return
		case int:
			v.AppendInt(int64(t))
			return
		case time.Time:
			v.AppendInt(t.UnixNano())
			return
		case time.Duration:
			v.AppendInt(int64(t))
			return
		case float64:
			v.AppendInt(int64(t))
			return
		}
	case Float:
		switch t := x.(type) {
		case float64:
			v.AppendFloat(t)
			return
		case int64:
			v.AppendFloat(float64(t))
			return
		case int:
			v.AppendFloat(float64(t))
			return
		}
	case String:
		if s, ok := x.(string); ok {
			v.AppendStr(s)
			return
		}
	case Dynamic:
		v.AppendDyn(x)
		return
	}
	v.AppendNull()
}

// AppendFrom appends row i of src, which must have the same Type.
func (v *Vector) AppendFrom(src *Vector, i int) {
	if src.IsNull(i) {
		v.AppendNull()
		return
	}
	switch v.Type {
	case Bool:
		v.AppendBool(src.Bool(i))
	case Int, DateTime, TimeSpan:
		v.AppendInt(src.Int(i))
	case Float:
		v.AppendFloat(src.Float(i))
	case String:
		if v.Codes != nil {
			v.Decode()
		}
		v.AppendStr(src.Str(i))
	case Dynamic:
		v.AppendDyn(src.Dyn(i))
	default:
		v.AppendNull()
	}
}

// Decode turns a dictionary-encoded or constant vector into a plain one in
// place. Kernels that do not special-case either call it first.
func (v *Vector) Decode() {
	if v.Const {
		c := v.Value(0)
		n := v.Len
		*v = *New(v.Type, n)
		for i := 0; i < n; i++ {
			v.AppendValue(c)
		}
		return
	}
	if v.Codes == nil {
		return
	}
	strs := make([]string, len(v.Codes))
	for i, c := range v.Codes {
		strs[i] = v.Dict[c]
	}
	v.Strs, v.Codes, v.Dict = strs, nil, nil
}

// Gather returns a new vector holding rows sel of v, in order. A constant
// stays constant.
func (v *Vector) Gather(sel []int32) *Vector {
	if v.Const {
		c := *v
		c.Len = len(sel)
		return &c
	}
	out := &Vector{Type: v.Type, Len: len(sel)}
	switch v.Type {
	case Bool:
		out.Bools = make([]bool, len(sel))
		for j, i := range sel {
			out.Bools[j] = v.Bools[i]
		}
	case Int, DateTime, TimeSpan:
		out.Ints = make([]int64, len(sel))
		for j, i := range sel {
			out.Ints[j] = v.Ints[i]
		}
	case Float:
		out.Floats = make([]float64, len(sel))
		for j, i := range sel {
			out.Floats[j] = v.Floats[i]
		}
	case String:
		if v.Codes != nil {
			out.Dict = v.Dict
			out.Codes = make([]uint32, len(sel))
			for j, i := range sel {
				out.Codes[j] = v.Codes[i]
			}
		} else {
			out.Strs = make([]string, len(sel))
			for j, i := range sel {
				out.Strs[j] = v.Strs[i]
			}
		}
	case Dynamic:
		out.Dyns = make([]any, len(sel))
		for j, i := range sel {
			out.Dyns[j] = v.Dyns[i]
		}
		if m := v.Mix(); m != nil {
			out.Mixed = m.gather(sel)
		}
	}
	if v.Valid != nil {
		out.Valid = NewBitmap(len(sel))
		for j, i := range sel {
			if v.Valid.Get(int(i)) {
				out.Valid.Set(j)
			}
		}
	}
	return out
}

// Materialize returns v as a non-constant vector (a copy when v is constant).
func (v *Vector) Materialize() *Vector {
	if !v.Const {
		return v
	}
	c := *v
	c.Decode()
	return &c
}

// Slice returns rows [lo, hi) of v sharing its payload. lo must be a
// multiple of 64 when v has a validity bitmap, so the bitmap can be shared
// word-aligned (scans cut parts into morsels on such boundaries).
func (v *Vector) Slice(lo, hi int) *Vector {
	out := *v
	out.Len = hi - lo
	if v.Const {
		return &out
	}
	if v.Valid != nil {
		if lo%64 != 0 {
			sel := make([]int32, hi-lo)
			for i := range sel {
				sel[i] = int32(lo + i)
			}
			return v.Gather(sel)
		}
		out.Valid = v.Valid[lo/64 : (hi+63)/64]
	}
	if len(v.SmallCodes) == v.Len {
		out.SmallCodes = v.SmallCodes[lo:hi]
	} else {
		out.SmallCodes, out.SmallVals = nil, nil
	}
	switch v.Type {
	case Bool:
		out.Bools = v.Bools[lo:hi]
	case Int, DateTime, TimeSpan:
		out.Ints = v.Ints[lo:hi]
	case Float:
		out.Floats = v.Floats[lo:hi]
	case String:
		if v.Codes != nil {
			out.Codes = v.Codes[lo:hi]
		} else {
			out.Strs = v.Strs[lo:hi]
		}
	case Dynamic:
		out.Dyns = v.Dyns[lo:hi]
		out.Mixed = nil
		if m := v.Mix(); m != nil && lo%64 == 0 {
			out.Mixed = m.slice(lo, hi)
		}
	}
	return &out
}

// Bytes estimates the memory the vector's payload holds, for cache and
// memory-budget accounting.
func (v *Vector) Bytes() int64 {
	n := int64(len(v.Valid)*8 + len(v.Bools) + len(v.Ints)*8 + len(v.Floats)*8 + len(v.Codes)*4 + len(v.Dyns)*16 +
		len(v.SmallCodes) + len(v.SmallVals)*8)
	if m := v.Mixed; m != nil {
		n += int64(len(m.Floats)*8 + (len(m.Num)+len(m.Real)+len(m.Ord)+len(m.Int))*8)
	}
	for _, s := range v.Strs {
		n += int64(len(s)) + 16
	}
	for _, s := range v.Dict {
		n += int64(len(s)) + 16
	}
	return n
}

// Scatter is Gather's inverse: it returns an n-row vector whose row
// sel[j] is row j of v (len(v) == len(sel)). The rows not in sel are
// null and hold zero values, so a result computed over a batch's
// compacted live rows can stand in the batch itself. A constant stays
// constant.
func (v *Vector) Scatter(sel []int32, n int) *Vector {
	if v.Const {
		c := *v
		c.Len = n
		return &c
	}
	out := &Vector{Type: v.Type, Len: n}
	switch v.Type {
	case Bool:
		out.Bools = scatter(v.Bools, sel, n)
	case Int, DateTime, TimeSpan:
		out.Ints = scatter(v.Ints, sel, n)
	case Float:
		out.Floats = scatter(v.Floats, sel, n)
	case String:
		if v.Codes != nil {
			out.Dict = v.Dict
			out.Codes = scatter(v.Codes, sel, n)
		} else {
			out.Strs = scatter(v.Strs, sel, n)
		}
	case Dynamic:
		out.Dyns = scatter(v.Dyns, sel, n)
	case Null:
		return out
	}
	out.Valid = NewBitmap(n)
	for j, i := range sel {
		if v.Valid == nil || v.Valid.Get(j) {
			out.Valid.Set(int(i))
		}
	}
	return out
}

// scatter places vals[j] at row sel[j] of a new slice of n zero values.
func scatter[T any](vals []T, sel []int32, n int) []T {
	out := make([]T, n)
	for j, i := range sel {
		out[i] = vals[j]
	}
	return out
}
