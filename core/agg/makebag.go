package agg

import (
	"fmt"

	"github.com/aplite/aplite/vector"
)

// make_bag(x [, max]) merges the property bags (dynamic objects) of each
// group into one bag; values that are not bags are ignored, as in KQL.
// When a key appears in several rows the first row's value is kept. A
// group without bags gives an empty bag. max bounds the number of keys
// (default 1048576). Axiom mentions make_bag only in its skills reference;
// the clients know no name for it, so it reports as "computed".

func init() { Register(makeBagSpec) }

var makeBagSpec = &Spec{
	Name:      "make_bag",
	APIName:   "computed",
	MinArgs:   1,
	MaxArgs:   2,
	ConstArgs: []int{1},
	Result: func(args []vector.Type) ([]vector.Type, error) {
		if args[0] != vector.Dynamic && args[0] != vector.Null {
			return nil, fmt.Errorf("argument 1 must be dynamic, got %s", args[0])
		}
		return one(vector.Dynamic), nil
	},
	New: func(_ *Context, args []vector.Type, consts []any) (State, error) {
		if args[0] != vector.Dynamic && args[0] != vector.Null {
			return nil, fmt.Errorf("argument 1 must be dynamic, got %s", args[0])
		}
		limit, err := listLimit(args, consts)
		if err != nil {
			return nil, err
		}
		return &bagState{limit: limit}, nil
	},
	Doc: "Merges the group's property bags into one bag.",
}

type bagState struct {
	limit int
	bags  []map[string]any
	bytes int64 // the entries held (Sized)
}

// Bytes implements Sized.
func (s *bagState) Bytes() int64 { return s.bytes }

func (s *bagState) Grow(n int) { s.bags = growSlice(s.bags, n) }

func (s *bagState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) || v.Type != vector.Dynamic {
		return
	}
	for k, g := range groups {
		r := physRow(sel, k)
		if v.Const {
			r = 0
		}
		if m, ok := v.Dyns[r].(map[string]any); ok && validAt(v.Valid, r) {
			s.add(g, m)
		}
	}
}

func (s *bagState) add(g uint32, m map[string]any) {
	bag := s.bags[g]
	if bag == nil {
		bag = make(map[string]any, len(m))
		s.bags[g] = bag
	}
	for k, x := range m {
		if _, dup := bag[k]; !dup && len(bag) < s.limit {
			bag[k] = x
			s.bytes += 48 + int64(len(k)) + valueBytes(x)
		}
	}
}

func (s *bagState) Merge(other State, into []uint32) {
	o := other.(*bagState)
	for g, dst := range into {
		if o.bags[g] != nil {
			s.add(dst, o.bags[g])
		}
	}
}

func (s *bagState) Result(n int) []*vector.Vector {
	out := make([]any, n)
	for g := 0; g < n; g++ {
		bag := map[string]any{}
		for k, x := range s.bags[g] {
			bag[k] = x
		}
		out[g] = bag
	}
	return []*vector.Vector{dynResult(out, n)}
}
