package agg

import (
	"cmp"
	"fmt"
	"sort"
	"unsafe"

	"github.com/aplite/aplite/vector"
)

// min(x) and max(x) return the smallest and largest non-null value of each
// group for numbers, datetimes, timespans and strings (byte-wise order),
// keeping the input type; over a dynamic column they compare as
// dynorder.go says. NaN is skipped like null, except that a group
// whose only values are NaN gives NaN. A group with no value gives null.

func init() {
	Register(extremeSpec("min", false))
	Register(extremeSpec("max", true))
	Register(withIf(extremeSpec("min", false), "minif", "minif", -1,
		"Returns the smallest value among the rows for which the predicate is true."))
	Register(withIf(extremeSpec("max", true), "maxif", "maxif", -1,
		"Returns the largest value among the rows for which the predicate is true."))
}

func extremeSpec(name string, isMax bool) *Spec {
	doc := "Returns the smallest non-null value of the group."
	if isMax {
		doc = "Returns the largest non-null value of the group."
	}
	check := func(t vector.Type) error {
		if !isOrdered(t) && t != vector.Dynamic {
			return fmt.Errorf("argument 1 must be a number, datetime, timespan, string or dynamic, got %s", t)
		}
		return nil
	}
	return &Spec{
		Name:    name,
		APIName: name,
		MinArgs: 1,
		MaxArgs: 1,
		Result: func(args []vector.Type) ([]vector.Type, error) {
			return one(args[0]), check(args[0])
		},
		New: func(_ *Context, args []vector.Type, _ []any) (State, error) {
			if err := check(args[0]); err != nil {
				return nil, err
			}
			return &extremeState{t: args[0], isMax: isMax}, nil
		},
		Doc: doc,
	}
}

// extremeState keeps the best value per group in the flat slice of the
// input's payload type.
type extremeState struct {
	t      vector.Type
	isMax  bool
	ints   []int64
	floats []float64
	strs   []string
	has    []bool
	nan    []bool // float groups that saw a NaN
	dyns   []dynBest
	dict   dictRanks
}

func (s *extremeState) Grow(n int) {
	switch s.t {
	case vector.Float:
		s.floats = growFloat64(s.floats, n)
		s.nan = growBool(s.nan, n)
	case vector.String:
		s.strs = growSlice(s.strs, n)
	case vector.Dynamic:
		s.dyns = growSlice(s.dyns, n)
	default:
		s.ints = growInt64(s.ints, n)
	}
	s.has = growBool(s.has, n)
}

func (s *extremeState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) || v.Type != s.t {
		return
	}
	switch v.Type {
	case vector.Float:
		extremeFloats(s.floats, s.has, s.nan, v, sel, groups, s.isMax)
	case vector.String:
		if v.Const {
			x := v.Str(0)
			for _, g := range groups {
				mergeBest(s.strs, s.has, x, g, s.isMax)
			}
			return
		}
		if v.Codes != nil {
			s.dict.update(s.strs, s.has, v, sel, groups, s.isMax)
			return
		}
		extremeInto(s.strs, s.has, v, v.Strs, sel, groups, s.isMax)
	case vector.Dynamic:
		dynExtremes(s.dyns, s.has, v, sel, groups, s.isMax)
	default:
		extremeInto(s.ints, s.has, v, v.Ints, sel, groups, s.isMax)
	}
}

// extremeInto folds vals into best: the shared kernel of min and max over
// ints and plain strings. The comparison direction is chosen once per
// batch so each loop has a single compare.
func extremeInto[T cmp.Ordered](best []T, has []bool, v *vector.Vector, vals []T, sel []int32, groups []uint32, isMax bool) {
	valid := v.Valid
	if v.Const {
		x := vals[0]
		for _, g := range groups {
			if !has[g] || (isMax && x > best[g]) || (!isMax && x < best[g]) {
				best[g], has[g] = x, true
			}
		}
		return
	}
	if isMax {
		for k, g := range groups {
			r := physRow(sel, k)
			if validAt(valid, r) {
				if x := vals[r]; !has[g] || x > best[g] {
					best[g], has[g] = x, true
				}
			}
		}
		return
	}
	for k, g := range groups {
		r := physRow(sel, k)
		if validAt(valid, r) {
			if x := vals[r]; !has[g] || x < best[g] {
				best[g], has[g] = x, true
			}
		}
	}
}

// extremeFloats is extremeInto for reals, skipping NaN (and noting it).
// The common batch, non-constant without nulls, runs a loop per direction
// whose only test for most rows is one compare with the group's best.
func extremeFloats(best []float64, has, nan []bool, v *vector.Vector, sel []int32, groups []uint32, isMax bool) {
	valid := v.Valid
	if v.Const || valid != nil || sel != nil {
		for k, g := range groups {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			if !validAt(valid, r) {
				continue
			}
			x := v.Floats[r]
			switch {
			case x != x:
				nan[g] = true
			case !has[g] || (isMax && x > best[g]) || (!isMax && x < best[g]):
				best[g], has[g] = x, true
			}
		}
		return
	}
	fs := v.Floats[:len(groups)]
	if isMax {
		for k, g := range groups {
			if x := fs[k]; x > best[g] || !has[g] {
				if x != x {
					nan[g] = true
					continue
				}
				best[g], has[g] = x, true
			}
		}
		return
	}
	for k, g := range groups {
		if x := fs[k]; x < best[g] || !has[g] {
			if x != x {
				nan[g] = true
				continue
			}
			best[g], has[g] = x, true
		}
	}
}

func (s *extremeState) Merge(other State, into []uint32) {
	o := other.(*extremeState)
	for g, dst := range into {
		if s.t == vector.Float && o.nan[g] {
			s.nan[dst] = true
		}
		if !o.has[g] {
			continue
		}
		switch s.t {
		case vector.Float:
			mergeBest(s.floats, s.has, o.floats[g], dst, s.isMax)
		case vector.String:
			mergeBest(s.strs, s.has, o.strs[g], dst, s.isMax)
		case vector.Dynamic:
			if !s.has[dst] || o.dyns[g].beats(s.dyns[dst], s.isMax) {
				s.dyns[dst], s.has[dst] = o.dyns[g], true
			}
		default:
			mergeBest(s.ints, s.has, o.ints[g], dst, s.isMax)
		}
	}
}

// mergeBest folds one value into group dst.
func mergeBest[T cmp.Ordered](best []T, has []bool, x T, dst uint32, isMax bool) {
	if !has[dst] || (isMax && x > best[dst]) || (!isMax && x < best[dst]) {
		best[dst], has[dst] = x, true
	}
}

func (s *extremeState) Result(n int) []*vector.Vector {
	switch s.t {
	case vector.Float:
		vals := make([]float64, n)
		has := make([]bool, n)
		for g := 0; g < n; g++ {
			switch {
			case s.has[g]:
				vals[g], has[g] = s.floats[g], true
			case s.nan[g]:
				vals[g], has[g] = nan(), true
			}
		}
		return []*vector.Vector{floatsResult(vals, has, n)}
	case vector.String:
		out := &vector.Vector{Type: vector.String, Len: n, Strs: make([]string, n)}
		copy(out.Strs, s.strs)
		out.Valid = nullMask(s.has, n)
		return []*vector.Vector{out}
	case vector.Dynamic:
		return []*vector.Vector{dynExtremeResult(s.dyns, s.has, n)}
	case vector.Null:
		return []*vector.Vector{vector.NewNulls(vector.Null, n).Materialize()}
	}
	return []*vector.Vector{intsResult(s.t, s.ints, s.has, n)}
}

// dictRanks finds min/max over dictionary-encoded strings by comparing
// small integers: the dictionary is ranked once (and the ranking reused
// while batches share the dictionary), the best code per group is found
// over ranks, and only then is one string per touched group compared with
// the group's running best.
type dictRanks struct {
	dictPtr *string
	dictLen int
	rank    []int32 // rank[code] = position of Dict[code] in sorted order
	best    []int32 // per group best code in this batch, -1 = none
	touched []uint32
}

func (d *dictRanks) update(best []string, has []bool, v *vector.Vector, sel []int32, groups []uint32, isMax bool) {
	dict := v.Dict
	if len(dict) > 2*len(groups)+64 && !d.same(dict) {
		// Ranking a dictionary much larger than the batch costs more than
		// comparing the strings row by row.
		for k, g := range groups {
			r := physRow(sel, k)
			if validAt(v.Valid, r) {
				mergeBest(best, has, dict[v.Codes[r]], g, isMax)
			}
		}
		return
	}
	d.rankDict(dict)
	d.best = growSlice(d.best, len(has))
	codes, valid, rank, bc := v.Codes, v.Valid, d.rank, d.best
	d.touched = d.touched[:0]
	for k, g := range groups {
		r := physRow(sel, k)
		if !validAt(valid, r) {
			continue
		}
		c := int32(codes[r])
		switch b := bc[g]; {
		case b == 0:
			bc[g] = c + 1 // stored +1 so the zero value means none
			d.touched = append(d.touched, g)
		case isMax && rank[c] > rank[b-1], !isMax && rank[c] < rank[b-1]:
			bc[g] = c + 1
		}
	}
	for _, g := range d.touched {
		mergeBest(best, has, dict[bc[g]-1], g, isMax)
		bc[g] = 0
	}
}

func (d *dictRanks) same(dict []string) bool {
	return len(dict) > 0 && d.dictLen == len(dict) && d.dictPtr == unsafe.SliceData(dict)
}

func (d *dictRanks) rankDict(dict []string) {
	if d.same(dict) {
		return
	}
	order := make([]int32, len(dict))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return dict[order[a]] < dict[order[b]] })
	d.rank = growSlice(d.rank[:0], len(dict))
	for pos, c := range order {
		d.rank[c] = int32(pos)
	}
	d.dictPtr, d.dictLen = unsafe.SliceData(dict), len(dict)
}
