package agg

import "github.com/aplite/aplite/vector"

// cells is a per-group column of any type with random-access writes: it
// holds the values arg_min/arg_max carry from the winning row, in the flat
// payload slice of the column's type.
type cells struct {
	t      vector.Type
	ints   []int64
	floats []float64
	strs   []string
	bools  []bool
	dyns   []any
	has    []bool
}

func (c *cells) grow(n int) {
	switch c.t {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		c.ints = growInt64(c.ints, n)
	case vector.Float:
		c.floats = growFloat64(c.floats, n)
	case vector.String:
		c.strs = growSlice(c.strs, n)
	case vector.Bool:
		c.bools = growBool(c.bools, n)
	case vector.Dynamic:
		c.dyns = growSlice(c.dyns, n)
	}
	c.has = growBool(c.has, n)
}

// set stores row r of v (already mapped for Const) as group g's value.
func (c *cells) set(g uint32, v *vector.Vector, r int) {
	if v.Type != c.t || v.Type == vector.Null || !validAt(v.Valid, r) {
		c.has[g] = false
		return
	}
	c.has[g] = true
	switch c.t {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		c.ints[g] = v.Ints[r]
	case vector.Float:
		c.floats[g] = v.Floats[r]
	case vector.String:
		if v.Codes != nil {
			c.strs[g] = v.Dict[v.Codes[r]]
		} else {
			c.strs[g] = v.Strs[r]
		}
	case vector.Bool:
		c.bools[g] = v.Bools[r]
	case vector.Dynamic:
		c.dyns[g] = v.Dyns[r]
	}
}

// copyFrom sets group dst to group src of o.
func (c *cells) copyFrom(o *cells, src int, dst uint32) {
	c.has[dst] = o.has[src]
	switch c.t {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		c.ints[dst] = o.ints[src]
	case vector.Float:
		c.floats[dst] = o.floats[src]
	case vector.String:
		c.strs[dst] = o.strs[src]
	case vector.Bool:
		c.bools[dst] = o.bools[src]
	case vector.Dynamic:
		c.dyns[dst] = o.dyns[src]
	}
}

func (c *cells) result(n int) *vector.Vector {
	out := &vector.Vector{Type: c.t, Len: n, Valid: nullMask(c.has, n)}
	switch c.t {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		out.Ints = append([]int64(nil), c.ints[:n]...)
	case vector.Float:
		out.Floats = append([]float64(nil), c.floats[:n]...)
	case vector.String:
		out.Strs = append([]string(nil), c.strs[:n]...)
	case vector.Bool:
		out.Bools = append([]bool(nil), c.bools[:n]...)
	case vector.Dynamic:
		out.Dyns = append([]any(nil), c.dyns[:n]...)
	case vector.Null:
		out.Valid = nil
		return vector.NewNulls(vector.Null, n).Materialize()
	}
	return out
}
