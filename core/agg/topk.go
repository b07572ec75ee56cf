package agg

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/aplite/aplite/vector"
)

// topk(x, k) estimates the k most frequent non-null values of each group.
// The result is one dynamic array per group of {"key": value, "count": n,
// "error": e} objects in descending count order, the shape Axiom returns
// (axiom-go's integration test reads key, count and error). Counts are
// exact (error 0) while a group has at most max(32·k, 512) distinct
// values; beyond that the space-saving summary (spacesaving.go) may
// overestimate a count by at most its error. topkif(x, k, pred) counts
// only rows where pred is true.

func init() {
	Register(topkSpec)
	Register(withIf(topkSpec, "topkif", "topkif", -1,
		"Estimates the k most frequent values among the rows for which the predicate is true."))
}

var topkSpec = &Spec{
	Name:      "topk",
	APIName:   "topk",
	MinArgs:   2,
	MaxArgs:   2,
	ConstArgs: []int{1},
	Result:    fixed(vector.Dynamic),
	New: func(_ *Context, args []vector.Type, consts []any) (State, error) {
		k, err := constInt(1, consts[1])
		if err != nil {
			return nil, err
		}
		if k < 1 || k > 100000 {
			return nil, fmt.Errorf("k must be 1 to 100000, got %d", k)
		}
		return newTopk(args[0], int(k)), nil
	},
	Doc: "Estimates the k most frequent values of the group with their counts.",
}

func topkCapacity(k int) int { return max(32*k, 512) }

func newTopk(t vector.Type, k int) State {
	capacity := topkCapacity(k)
	switch t {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		return &topkState[int64]{t: t, k: k, capacity: capacity, box: func(x int64) any { return boxInt(t, x) }}
	case vector.Float:
		return &topkState[float64]{t: t, k: k, capacity: capacity, box: func(x float64) any { return x }}
	case vector.Bool:
		return &topkState[bool]{t: t, k: k, capacity: capacity, box: func(x bool) any { return x }}
	}
	// Strings count by value; dynamic values by their JSON text.
	return &topkState[string]{t: t, k: k, capacity: capacity, box: func(x string) any {
		if t != vector.Dynamic {
			return x
		}
		var v any
		if json.Unmarshal([]byte(x), &v) != nil {
			return x
		}
		return v
	}}
}

// topkState keeps one space-saving summary per group, created on first
// value so empty groups cost a nil pointer.
type topkState[K comparable] struct {
	t        vector.Type
	k        int
	capacity int
	box      func(K) any
	groups   []*spaceSaving[K]
}

func (s *topkState[K]) Grow(n int) { s.groups = growSlice(s.groups, n) }

func (s *topkState[K]) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) || v.Type != s.t {
		return
	}
	for k, g := range groups {
		r, ok := liveRow(v, sel, k)
		if !ok {
			continue
		}
		key, ok := rowKey[K](v, r)
		if !ok {
			continue
		}
		ss := s.groups[g]
		if ss == nil {
			ss = newSpaceSaving[K](s.capacity)
			s.groups[g] = ss
		}
		ss.add(key, 1, 0)
	}
}

// rowKey reads row r of v as a map key of type K (chosen by newTopk to
// match v's type). NaN and non-encodable dynamics are skipped.
func rowKey[K comparable](v *vector.Vector, r int) (K, bool) {
	var zero K
	switch v.Type {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		return any(v.Ints[r]).(K), true
	case vector.Float:
		x := v.Floats[r]
		if math.IsNaN(x) {
			return zero, false
		}
		return any(x + 0).(K), true // -0 counts as 0
	case vector.Bool:
		return any(v.Bools[r]).(K), true
	case vector.String:
		return any(v.Str(r)).(K), true
	case vector.Dynamic:
		if v.Dyns[r] == nil {
			return zero, false
		}
		b, err := json.Marshal(v.Dyns[r])
		if err != nil {
			return zero, false
		}
		return any(string(b)).(K), true
	}
	return zero, false
}

func (s *topkState[K]) Merge(other State, into []uint32) {
	o := other.(*topkState[K])
	for g, dst := range into {
		src := o.groups[g]
		if src == nil {
			continue
		}
		if s.groups[dst] == nil {
			s.groups[dst] = newSpaceSaving[K](s.capacity)
		}
		s.groups[dst].merge(src)
	}
}

func (s *topkState[K]) Result(n int) []*vector.Vector {
	out := make([]any, n)
	for g := 0; g < n; g++ {
		arr := []any{}
		if ss := s.groups[g]; ss != nil {
			for _, i := range ss.top(s.k) {
				arr = append(arr, map[string]any{
					"key": s.box(ss.keys[i]), "count": ss.counts[i], "error": ss.errs[i],
				})
			}
		}
		out[g] = arr
	}
	return []*vector.Vector{dynResult(out, n)}
}
