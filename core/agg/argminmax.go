package agg

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

// arg_min(expr, f1, ...) and arg_max(expr, f1, ...) find, per group, the
// row where expr is smallest (largest) and return expr's value there plus
// the value of every other argument in that same row: one output column
// per argument, each keeping its argument's type. The engine expands `*`
// into all columns before calling. Rows where expr is null or NaN are
// skipped; on ties the first row seen wins. A group where expr is null in
// every row still gives one of its rows (the first seen), with expr null,
// as Kusto's null handling says: the other columns are that row's values,
// not nulls.

func init() {
	Register(argSpec("arg_min", "argmin", false))
	Register(argSpec("arg_max", "argmax", true))
}

func argSpec(name, apiName string, isMax bool) *Spec {
	doc := "Returns expr's minimum and the other arguments' values in the row where it occurs; null expr is skipped, and a group where it is always null gives its first row (Kusto's null handling)."
	if isMax {
		doc = "Returns expr's maximum and the other arguments' values in the row where it occurs; null expr is skipped, and a group where it is always null gives its first row (Kusto's null handling)."
	}
	check := func(args []vector.Type) error {
		if !isOrdered(args[0]) && args[0] != vector.Dynamic {
			return fmt.Errorf("argument 1 must be a number, datetime, timespan, string or dynamic, got %s", args[0])
		}
		return nil
	}
	return &Spec{
		Name:    name,
		APIName: apiName,
		MinArgs: 1,
		MaxArgs: -1,
		Result: func(args []vector.Type) ([]vector.Type, error) {
			return append([]vector.Type(nil), args...), check(args)
		},
		New: func(_ *Context, args []vector.Type, _ []any) (State, error) {
			if err := check(args); err != nil {
				return nil, err
			}
			s := &argState{key: extremeState{t: args[0], isMax: isMax}}
			for _, t := range args[1:] {
				s.cols = append(s.cols, cells{t: t})
			}
			return s, nil
		},
		Doc: doc,
	}
}

// argState keeps the best key per group (as min/max does) and the carried
// values of the winning row. filled marks groups whose cols hold a row:
// the winner's, or while no row has a key, the first row seen.
type argState struct {
	key    extremeState
	cols   []cells
	filled []bool
}

func (s *argState) Grow(n int) {
	s.key.Grow(n)
	s.filled = growBool(s.filled, n)
	for i := range s.cols {
		s.cols[i].grow(n)
	}
}

func (s *argState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	noKey := allNull(v) || v.Type != s.key.t
	for k, g := range groups {
		r := physRow(sel, k)
		kr := r
		if v.Const {
			kr = 0
		}
		if noKey || !validAt(v.Valid, kr) || (v.Type == vector.Float && v.Floats[kr] != v.Floats[kr]) ||
			(v.Type == vector.Dynamic && !dynOrderable(v.Dyns[kr])) {
			// A null key never wins, but the group's first row is kept
			// until one does, for groups where none ever does.
			if s.filled[g] || s.key.has[g] {
				continue
			}
		} else if !s.better(v, kr, g) {
			continue
		}
		s.filled[g] = true
		for i := range s.cols {
			a := args[i+1]
			ar := r
			if a.Const {
				ar = 0
			}
			s.cols[i].set(g, a, ar)
		}
	}
}

// better stores row r's key as group g's best when it beats it.
// dynOrderable reports whether a dynamic key can be compared (a number or
// a string); an array, a bag or "nan" counts as a null key.
func dynOrderable(x any) bool {
	_, ok := dynKey(x)
	return ok
}

func (s *argState) better(v *vector.Vector, r int, g uint32) bool {
	ks := &s.key
	first := !ks.has[g]
	switch v.Type {
	case vector.Float:
		x := v.Floats[r]
		if x != x || !(first || (ks.isMax && x > ks.floats[g]) || (!ks.isMax && x < ks.floats[g])) {
			return false
		}
		ks.floats[g] = x
	case vector.String:
		x := v.Str(r)
		if !(first || (ks.isMax && x > ks.strs[g]) || (!ks.isMax && x < ks.strs[g])) {
			return false
		}
		ks.strs[g] = x
	case vector.Dynamic:
		x, ok := dynKey(v.Dyns[r])
		if !ok || !(first || x.beats(ks.dyns[g], ks.isMax)) {
			return false
		}
		ks.dyns[g] = x
	default:
		x := v.Ints[r]
		if !(first || (ks.isMax && x > ks.ints[g]) || (!ks.isMax && x < ks.ints[g])) {
			return false
		}
		ks.ints[g] = x
	}
	ks.has[g] = true
	return true
}

func (s *argState) Merge(other State, into []uint32) {
	o := other.(*argState)
	for g, dst := range into {
		if !o.key.has[g] {
			if o.filled[g] && !s.filled[dst] {
				s.filled[dst] = true
				for i := range s.cols {
					s.cols[i].copyFrom(&o.cols[i], g, dst)
				}
			}
			continue
		}
		if s.key.has[dst] && !s.beats(o, g, dst) {
			continue
		}
		s.key.has[dst] = true
		s.filled[dst] = true
		switch s.key.t {
		case vector.Float:
			s.key.floats[dst] = o.key.floats[g]
		case vector.String:
			s.key.strs[dst] = o.key.strs[g]
		case vector.Dynamic:
			s.key.dyns[dst] = o.key.dyns[g]
		default:
			s.key.ints[dst] = o.key.ints[g]
		}
		for i := range s.cols {
			s.cols[i].copyFrom(&o.cols[i], g, dst)
		}
	}
}

// beats reports whether o's group g strictly improves on group dst.
func (s *argState) beats(o *argState, g int, dst uint32) bool {
	mx := s.key.isMax
	switch s.key.t {
	case vector.Float:
		a, b := o.key.floats[g], s.key.floats[dst]
		return (mx && a > b) || (!mx && a < b)
	case vector.String:
		a, b := o.key.strs[g], s.key.strs[dst]
		return (mx && a > b) || (!mx && a < b)
	case vector.Dynamic:
		return o.key.dyns[g].beats(s.key.dyns[dst], mx)
	}
	a, b := o.key.ints[g], s.key.ints[dst]
	return (mx && a > b) || (!mx && a < b)
}

func (s *argState) Result(n int) []*vector.Vector {
	out := s.key.Result(n)
	for i := range s.cols {
		out = append(out, s.cols[i].result(n))
	}
	return out
}
