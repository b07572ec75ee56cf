package db

import (
	"github.com/aplite/aplite/core/fn"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// Retype stores field of r as one column of type t, reading every value
// as the matching to*() function does (totimespan: numbers are
// nanoseconds, strings "250ms" or "00:00:00.25"): a file's field declared
// with the type a server dataset gives it (the command line's -type). A
// field that arrived with several types (200 and "200") becomes one
// column. Values that do not convert become null; lost counts them.
func Retype(r *Rows, field string, t Type) (lost int) {
	var at []int
	for i, k := range r.Keys {
		if k.Name == field {
			at = append(at, i)
		}
	}
	if len(at) == 0 || (len(at) == 1 && r.Keys[at[0]].Type == t) {
		return 0
	}
	out := vector.New(t, r.N)
	for row := 0; row < r.N; row++ {
		src := -1
		for _, i := range at {
			if !r.Cols[i].IsNull(row) {
				src = i
				break
			}
		}
		if src < 0 {
			out.AppendNull()
			continue
		}
		if !convertInto(out, r.Cols[src], row) {
			out.AppendNull()
			lost++
		}
	}
	// The typed column takes the place of the first one it replaces.
	r.Keys[at[0]], r.Cols[at[0]] = store.ColKey{Name: field, Type: t}, out
	for j := len(at) - 1; j > 0; j-- {
		i := at[j]
		r.Keys = append(r.Keys[:i], r.Keys[i+1:]...)
		r.Cols = append(r.Cols[:i], r.Cols[i+1:]...)
	}
	return lost
}

// convertInto appends row of v to out as out's type; false when the value
// does not convert.
func convertInto(out, v *vector.Vector, row int) bool {
	switch out.Type {
	case vector.TimeSpan:
		return appendInt(out, fn.ToDuration, v, row)
	case vector.DateTime:
		return appendInt(out, fn.ToTime, v, row)
	case vector.Int:
		return appendInt(out, fn.ToInt, v, row)
	case vector.Float:
		x, ok := fn.ToFloat(v, row)
		if ok {
			out.AppendFloat(x)
		}
		return ok
	case vector.Bool:
		x, ok := fn.ToBool(v, row)
		if ok {
			out.AppendBool(x)
		}
		return ok
	case vector.String:
		x, ok := fn.ToString(v, row)
		if ok {
			out.AppendStr(x)
		}
		return ok
	}
	x, ok := fn.ToDynamic(v, row)
	if ok {
		out.AppendDyn(x)
	}
	return ok
}

func appendInt(out *vector.Vector, conv func(*vector.Vector, int) (int64, bool), v *vector.Vector, row int) bool {
	x, ok := conv(v, row)
	if ok {
		out.AppendInt(x)
	}
	return ok
}
