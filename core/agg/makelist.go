package agg

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

// make_list(x [, max]) collects the non-null values of each group, in row
// order, into a dynamic array of at most max elements (default 1048576,
// as KQL). make_list_if(x, pred [, max]) collects only rows where pred is
// true. A group with no value gives an empty array. Values are kept in
// their column's payload type and boxed only when the result is built.
// A value that is a dynamic array adds its elements, not itself (one
// level; null elements are skipped like null values), as Kusto's
// make_set example over an array column shows: make_set of [A1,A2] and
// [A2,C1] is [A1,A2,C1]. make_list does the same.

// defaultMaxList is KQL's default and upper size of make_list/make_set.
const defaultMaxList = 1048576

func init() {
	Register(makeListSpec)
	Register(withIf(makeListSpec, "make_list_if", "makelistif", 1,
		"Collects the values of the rows for which the predicate is true into a dynamic array."))
}

var makeListSpec = &Spec{
	Name:      "make_list",
	APIName:   "makelist",
	MinArgs:   1,
	MaxArgs:   2,
	ConstArgs: []int{1},
	Result:    fixed(vector.Dynamic),
	New: func(_ *Context, args []vector.Type, consts []any) (State, error) {
		limit, err := listLimit(args, consts)
		if err != nil {
			return nil, err
		}
		return newCollect(args[0], limit, false), nil
	},
	Doc: "Collects the group's non-null values into a dynamic array; an array value adds its elements (Axiom's page is silent; follows Kusto).",
}

// listLimit reads the optional size limit argument.
func listLimit(args []vector.Type, consts []any) (int, error) {
	if len(args) < 2 {
		return defaultMaxList, nil
	}
	n, err := constInt(1, consts[1])
	if err != nil {
		return 0, err
	}
	if n <= 0 || n > defaultMaxList {
		return 0, fmt.Errorf("max size must be 1 to %d, got %d", defaultMaxList, n)
	}
	return int(n), nil
}

// newCollect returns the state of make_list (distinct false) or make_set
// (distinct true) over values of type t.
func newCollect(t vector.Type, limit int, distinct bool) State {
	switch t {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		return &collectState[int64, int64]{t: t, limit: limit, distinct: distinct,
			key: func(x int64) int64 { return x }, box: func(x int64) any { return boxInt(t, x) }}
	case vector.Float:
		return &collectState[float64, uint64]{t: t, limit: limit, distinct: distinct,
			key: floatKey, box: func(x float64) any { return x }}
	case vector.String:
		return &collectState[string, string]{t: t, limit: limit, distinct: distinct,
			key: func(x string) string { return x }, box: func(x string) any { return x }}
	case vector.Bool:
		return &collectState[bool, bool]{t: t, limit: limit, distinct: distinct,
			key: func(x bool) bool { return x }, box: func(x bool) any { return x }}
	}
	return &collectState[any, uint64]{t: t, limit: limit, distinct: distinct,
		key: hashDyn, box: func(x any) any { return x }}
}

// floatKey makes 0 and -0 one set element, and every NaN one element.
func floatKey(x float64) uint64 { return hashFloat(x) }

// collectState keeps per group the list of values (T is the payload type)
// and, for make_set, the set of their keys.
type collectState[T any, K comparable] struct {
	t        vector.Type
	limit    int
	distinct bool
	key      func(T) K
	box      func(T) any
	lists    [][]T
	seen     []map[K]struct{}
	// bytes is what the lists and sets hold (Sized), counted as they grow.
	bytes int64
}

// Bytes implements Sized.
func (s *collectState[T, K]) Bytes() int64 {
	return s.bytes + int64(cap(s.lists))*24 + int64(cap(s.seen))*8 // and each group's slot
}

func (s *collectState[T, K]) Grow(n int) {
	s.lists = growSlice(s.lists, n)
	if s.distinct {
		s.seen = growSlice(s.seen, n)
	}
}

func (s *collectState[T, K]) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) || v.Type != s.t {
		return
	}
	if v.Type == vector.String && v.Codes != nil {
		// Dictionary strings: the payload is codes, so read through Str.
		strs := any(s).(*collectState[string, string])
		for k, g := range groups {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			if validAt(v.Valid, r) {
				strs.add(g, v.Dict[v.Codes[r]])
			}
		}
		return
	}
	if dyn, ok := any(s).(*collectState[any, uint64]); ok {
		for k, g := range groups {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			if validAt(v.Valid, r) {
				dyn.addDyn(g, v.Dyns[r])
			}
		}
		return
	}
	vals := payload[T](v)
	for k, g := range groups {
		r := physRow(sel, k)
		if v.Const {
			r = 0
		}
		if validAt(v.Valid, r) {
			s.add(g, vals[r])
		}
	}
}

// addDyn adds a dynamic value: an array's non-null elements one by one,
// anything else (bags, scalars) as one value. Merge adds the collected
// elements with add, so nested arrays stay flattened by one level only.
func (s *collectState[T, K]) addDyn(g uint32, x any) {
	arr, isArr := x.([]any)
	if !isArr {
		if x != nil {
			s.add(g, any(x).(T))
		}
		return
	}
	for _, e := range arr {
		if e != nil {
			s.add(g, any(e).(T))
		}
	}
}

// payload returns v's payload slice, which has element type T by
// construction of the state.
func payload[T any](v *vector.Vector) []T {
	switch v.Type {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		return any(v.Ints).([]T)
	case vector.Float:
		return any(v.Floats).([]T)
	case vector.String:
		return any(v.Strs).([]T)
	case vector.Bool:
		return any(v.Bools).([]T)
	}
	return any(v.Dyns).([]T)
}

func (s *collectState[T, K]) add(g uint32, x T) {
	if len(s.lists[g]) >= s.limit {
		return
	}
	if s.distinct {
		m := s.seen[g]
		if m == nil {
			m = map[K]struct{}{}
			s.seen[g] = m
		}
		k := s.key(x)
		if _, dup := m[k]; dup {
			return
		}
		m[k] = struct{}{}
		// A map entry: the key, its hash byte and the table's slack.
		s.bytes += 2*sizeOfT[K]() + 8
	}
	l := s.lists[g]
	if len(l) == cap(l) {
		s.bytes += int64(max(2*cap(l), 4)-cap(l)) * sizeOfT[T]() // append's growth, roughly
	}
	s.lists[g] = append(l, x)
	switch v := any(x).(type) {
	case string:
		s.bytes += int64(len(v))
	case []any, map[string]any:
		s.bytes += valueBytes(v)
	}
}

func (s *collectState[T, K]) Merge(other State, into []uint32) {
	o := other.(*collectState[T, K])
	for g, dst := range into {
		for _, x := range o.lists[g] {
			s.add(dst, x)
		}
	}
}

func (s *collectState[T, K]) Result(n int) []*vector.Vector {
	out := make([]any, n)
	for g := 0; g < n; g++ {
		arr := make([]any, len(s.lists[g]))
		for i, x := range s.lists[g] {
			arr[i] = s.box(x)
		}
		out[g] = arr
	}
	return []*vector.Vector{dynResult(out, n)}
}
