package agg

import (
	"fmt"
	"math"
	"slices"

	"github.com/aplite/aplite/vector"
)

// histogram(x, nbins) splits the range [min, max] of each group's finite
// values into nbins equal-width bins and counts the values in each. The
// result is one dynamic array per group of nbins {"from": lo, "to": hi,
// "count": n} objects in ascending order; a value equal to max falls in
// the last bin, and a group whose values are all equal gets one bin.
// Values are stored as percentile stores them (quantile.go): exact up to
// 1024 per group, then in a 1%-relative-error sketch whose bucket centres
// are binned, so bin counts near a bin edge may be off by the values
// within 1% of that edge, matching Axiom's documented maximum error of 1%.
// NaN, ±Inf and null are not counted.
//
// Axiom's two pages disagree on the second argument (bin_size in
// histogram, number_of_bins in histogramif); the heatmap usage
// (histogram(duration_ms, 15)) reads as a bin count, which we follow. The
// output shape is ours: Axiom does not document it.

func init() {
	Register(histogramSpec)
	Register(withIf(histogramSpec, "histogramif", "histogramif", -1,
		"Histogram of the values of the rows for which the predicate is true."))
}

// maxBins bounds nbins so a typo cannot allocate gigabytes per group.
const maxBins = 10000

var histogramSpec = &Spec{
	Name:      "histogram",
	APIName:   "histogram",
	MinArgs:   2,
	MaxArgs:   2,
	ConstArgs: []int{1},
	Result: func(args []vector.Type) ([]vector.Type, error) {
		return one(vector.Dynamic), histType(args[0])
	},
	New: func(_ *Context, args []vector.Type, consts []any) (State, error) {
		if err := histType(args[0]); err != nil {
			return nil, err
		}
		nb, err := constInt(1, consts[1])
		if err != nil {
			return nil, err
		}
		if nb < 1 || nb > maxBins {
			return nil, fmt.Errorf("number of bins must be 1 to %d, got %d", maxBins, nb)
		}
		if t := args[0]; t == vector.Float || t == vector.Null || t == vector.Dynamic {
			if t == vector.Dynamic {
				t = vector.Float // dynamic values are read as reals (Update)
			}
			return &histState[float64]{quantState: quantState[float64]{t: t}, nbins: int(nb)}, nil
		}
		return &histState[int64]{quantState: quantState[int64]{t: args[0]}, nbins: int(nb)}, nil
	},
	Doc: "Counts the group's values in equal-width bins between their minimum and maximum.",
}

func histType(t vector.Type) error {
	switch t {
	case vector.Int, vector.Float, vector.TimeSpan, vector.Null, vector.Dynamic:
		return nil
	}
	return fmt.Errorf("argument 1 must be numeric, timespan or dynamic, got %s", t)
}

type histState[T number] struct {
	quantState[T]
	nbins int
}

func (s *histState[T]) Grow(n int) { s.grow(n) }

func (s *histState[T]) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if v.Type == vector.Dynamic {
		v = dynToFloats(v, sel)
	}
	if allNull(v) || v.Type != s.t {
		return
	}
	if v.Type == vector.Float {
		s.update(v, any(v.Floats).([]T), sel, groups)
		return
	}
	s.update(v, any(v.Ints).([]T), sel, groups)
}

func (s *histState[T]) Merge(other State, into []uint32) {
	s.merge(&other.(*histState[T]).quantState, into)
}

func (s *histState[T]) Result(n int) []*vector.Vector {
	out := make([]any, n)
	for g := 0; g < n; g++ {
		out[g] = s.bins(g)
	}
	return []*vector.Vector{dynResult(out, n)}
}

// bins builds group g's histogram.
func (s *histState[T]) bins(g int) []any {
	type point struct {
		v float64
		c uint64
	}
	var pts []point
	grp := &s.groups[g]
	if grp.sk != nil {
		grp.sk.buckets(func(v float64, c uint64) { pts = append(pts, point{v + s.base, c}) })
	} else {
		grp.flatten()
		slices.Sort(grp.vals)
		for _, x := range grp.vals {
			pts = append(pts, point{float64(x), 1})
		}
	}
	pts = slices.DeleteFunc(pts, func(p point) bool { return math.IsInf(p.v, 0) })
	if len(pts) == 0 {
		return []any{}
	}
	lo, hi := pts[0].v, pts[len(pts)-1].v
	if grp.sk != nil {
		// The sketch knows the exact extremes; bucket centres may overshoot.
		if !math.IsInf(grp.sk.min, 0) {
			lo = grp.sk.min + s.base
		}
		if !math.IsInf(grp.sk.max, 0) {
			hi = grp.sk.max + s.base
		}
	}
	nb := s.nbins
	if hi == lo {
		nb = 1
	}
	counts := make([]int64, nb)
	width := (hi - lo) / float64(nb)
	for _, p := range pts {
		i := 0
		if width > 0 {
			i = int((p.v - lo) / width)
		}
		counts[min(max(i, 0), nb-1)] += int64(p.c)
	}
	arr := make([]any, nb)
	for i := range arr {
		to := lo + float64(i+1)*width
		if i == nb-1 {
			to = hi
		}
		arr[i] = map[string]any{"from": lo + float64(i)*width, "to": to, "count": counts[i]}
	}
	return arr
}
