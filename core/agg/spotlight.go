package agg

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/aplite/aplite/vector"
)

// spotlight(pred, f1, f2, ...) compares the rows where pred is true (the
// selection) with the other rows of the group (the baseline; a null
// predicate counts as baseline) and reports which field values are
// over- or under-represented in the selection.
//
// Axiom documents the purpose and charts but not the output, so the shape
// is ours: one dynamic array per group of up to 50 objects
//
//	{"field": i, "value": v, "selected": n1, "baseline": n2,
//	 "selected_ratio": n1/N1, "baseline_ratio": n2/N2,
//	 "lift": ratio1/ratio2, "score": |ratio1 - ratio2|}
//
// ordered by score, where field is the 1-based position of the field among
// f1..fn (the engine knows the names), N1 and N2 are the selection and
// baseline sizes, and lift is null when the value never occurs in the
// baseline. Every field is compared by its distinct values, so numeric
// fields are treated as categories: Axiom's box-plot comparison of numeric
// distributions is not implemented. Per field and group at most 10000
// distinct values are tracked; later new values count under "(other)".

func init() { Register(spotlightSpec) }

const (
	spotlightTop       = 50
	spotlightMaxValues = 10000
	spotlightOther     = "(other)"
)

var spotlightSpec = &Spec{
	Name:    "spotlight",
	APIName: "spotlight",
	MinArgs: 2,
	MaxArgs: -1,
	Result: func(args []vector.Type) ([]vector.Type, error) {
		return one(vector.Dynamic), wantBool(0, args[0])
	},
	New: func(_ *Context, args []vector.Type, _ []any) (State, error) {
		if err := wantBool(0, args[0]); err != nil {
			return nil, err
		}
		return &spotState{fields: len(args) - 1}, nil
	},
	Doc: "Compares the rows matching a predicate with the rest and ranks the field values that differ most.",
}

type spotGroup struct {
	sel, base int64
	counts    []map[string]*[2]int64 // per field: value -> [selected, baseline]
}

type spotState struct {
	fields int
	groups []*spotGroup
	sel    []bool
}

func (s *spotState) Grow(n int) { s.groups = growSlice(s.groups, n) }

func (s *spotState) group(g uint32) *spotGroup {
	sg := s.groups[g]
	if sg == nil {
		sg = &spotGroup{counts: make([]map[string]*[2]int64, s.fields)}
		for i := range sg.counts {
			sg.counts[i] = map[string]*[2]int64{}
		}
		s.groups[g] = sg
	}
	return sg
}

func (s *spotState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	pred := args[0]
	s.sel = growBool(s.sel[:0], len(groups))
	for k := range groups {
		r := physRow(sel, k)
		if pred.Const {
			r = 0
		}
		s.sel[k] = pred.Type != vector.Null && validAt(pred.Valid, r) && pred.Value(r) == true
	}
	for k, g := range groups {
		sg := s.group(g)
		side := 1
		if s.sel[k] {
			side = 0
			sg.sel++
		} else {
			sg.base++
		}
		r := physRow(sel, k)
		for i, f := range args[1:] {
			fr := r
			if f.Const {
				fr = 0
			}
			if f.Type == vector.Null || !validAt(f.Valid, fr) {
				continue
			}
			bumpValue(sg.counts[i], spotKey(f, fr), side, 1)
		}
	}
}

// bumpValue adds c to the side (0 selected, 1 baseline) of value key,
// folding new values into "(other)" past the cap.
func bumpValue(m map[string]*[2]int64, key string, side int, c int64) {
	e := m[key]
	if e == nil {
		if len(m) >= spotlightMaxValues {
			key = spotlightOther
			if e = m[key]; e == nil {
				e = &[2]int64{}
				m[key] = e
			}
		} else {
			e = &[2]int64{}
			m[key] = e
		}
	}
	e[side] += c
}

// spotKey is the text of a field value, which is also what the result
// reports.
func spotKey(v *vector.Vector, r int) string {
	switch v.Type {
	case vector.String:
		return v.Str(r)
	case vector.Int:
		return strconv.FormatInt(v.Ints[r], 10)
	case vector.Float:
		return strconv.FormatFloat(v.Floats[r], 'g', -1, 64)
	case vector.Bool:
		return strconv.FormatBool(v.Bools[r])
	case vector.DateTime:
		return time.Unix(0, v.Ints[r]).UTC().Format(time.RFC3339Nano)
	case vector.TimeSpan:
		return time.Duration(v.Ints[r]).String()
	}
	return fmt.Sprint(v.Dyns[r])
}

func (s *spotState) Merge(other State, into []uint32) {
	o := other.(*spotState)
	for g, dst := range into {
		src := o.groups[g]
		if src == nil {
			continue
		}
		sg := s.group(dst)
		sg.sel += src.sel
		sg.base += src.base
		for i, m := range src.counts {
			for key, c := range m {
				bumpValue(sg.counts[i], key, 0, c[0])
				bumpValue(sg.counts[i], key, 1, c[1])
			}
		}
	}
}

func (s *spotState) Result(n int) []*vector.Vector {
	out := make([]any, n)
	for g := 0; g < n; g++ {
		out[g] = s.groups[g].ranked()
	}
	return []*vector.Vector{dynResult(out, n)}
}

// ranked builds one group's result.
func (sg *spotGroup) ranked() []any {
	arr := []any{}
	if sg == nil {
		return arr
	}
	type item struct {
		field       int
		value       string
		sel, base   int64
		rs, rb, scr float64
	}
	var items []item
	ratio := func(c, n int64) float64 {
		if n == 0 {
			return 0
		}
		return float64(c) / float64(n)
	}
	for i, m := range sg.counts {
		for key, c := range m {
			rs, rb := ratio(c[0], sg.sel), ratio(c[1], sg.base)
			items = append(items, item{i + 1, key, c[0], c[1], rs, rb, math.Abs(rs - rb)})
		}
	}
	sort.Slice(items, func(a, b int) bool {
		x, y := items[a], items[b]
		if x.scr != y.scr {
			return x.scr > y.scr
		}
		if x.field != y.field {
			return x.field < y.field
		}
		return x.value < y.value
	})
	for _, it := range items[:min(len(items), spotlightTop)] {
		var lift any
		if it.rb > 0 {
			lift = it.rs / it.rb
		}
		arr = append(arr, map[string]any{
			"field": int64(it.field), "value": it.value,
			"selected": it.sel, "baseline": it.base,
			"selected_ratio": it.rs, "baseline_ratio": it.rb,
			"lift": lift, "score": it.scr,
		})
	}
	return arr
}
