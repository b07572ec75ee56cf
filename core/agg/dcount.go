package agg

import (
	"fmt"
	"unsafe"

	"github.com/aplite/aplite/vector"
)

// dcount(x [, accuracy]) estimates the number of distinct non-null values
// of each group. It is exact below 1000 distinct values per group and an
// estimate above (see distinctSet in hll.go). The optional accuracy level
// follows KQL: 0 → 2^12 registers (±1.6%), 1 (default) → 2^14 (±0.81%),
// 2 → 2^16 (±0.41%), 3 → 2^17 (±0.29%), 4 → 2^18 (±0.2%); the figures
// are the standard error. Measured with TestDcountError (one data set,
// 8192-row batches): at the default level 1e5 distinct values were
// estimated at -0.54% and 1e6 at +0.27%; at level 0, +3.2% and +0.8%; at
// level 2, -0.09% and +0.21%. Over 30 seeds the bias stayed below 0.15%
// and the RMSE was 0.6% at level 1 and 1.1-1.4% at level 0, within the
// standard errors above.
//
// dcountif(x, pred [, accuracy]) counts only the rows where pred is true.

func init() {
	Register(dcountSpec)
	Register(withIf(dcountSpec, "dcountif", "distinctif", 1,
		"Estimates the number of distinct values among the rows for which the predicate is true."))
}

var dcountSpec = &Spec{
	Name:      "dcount",
	APIName:   "distinct",
	MinArgs:   1,
	MaxArgs:   2,
	ConstArgs: []int{1},
	Result: func(args []vector.Type) ([]vector.Type, error) {
		return one(vector.Int), nil
	},
	New: func(_ *Context, args []vector.Type, consts []any) (State, error) {
		p := uint8(14)
		if len(args) > 1 {
			level, err := constInt(1, consts[1])
			if err != nil {
				return nil, err
			}
			if level < 0 || level > 4 {
				return nil, fmt.Errorf("accuracy must be 0 to 4, got %d", level)
			}
			p = [...]uint8{12, 14, 16, 17, 18}[level]
		}
		return &dcountState{p: p}, nil
	},
	Doc: "Estimates the number of distinct non-null values of the group (exact below 1000).",
}

// dcountState keeps one distinctSet per group.
type dcountState struct {
	p     uint8
	sets  []distinctSet
	hash  hasher
	bytes int64 // the sets' tables and sketches (Sized)
}

// Bytes implements Sized.
func (s *dcountState) Bytes() int64 {
	return s.bytes + int64(cap(s.sets))*int64(unsafe.Sizeof(distinctSet{})) // and each group's slot
}

func (s *dcountState) Grow(n int) { s.sets = growSlice(s.sets, n) }

func (s *dcountState) Update(args []*vector.Vector, sel []int32, groups []uint32) {
	v := args[0]
	if allNull(v) {
		return
	}
	hs, ok := s.hash.hashRows(v, sel, len(groups))
	sets, p := s.sets, s.p
	for k, g := range groups {
		if ok[k] {
			d := &sets[g]
			if d.regs != nil {
				// A sketch's size is fixed: no accounting per value.
				hllAdd(d.regs, hs[k], p)
				continue
			}
			before := d.bytes()
			d.add(hs[k], p)
			s.bytes += d.bytes() - before
		}
	}
}

func (s *dcountState) Merge(other State, into []uint32) {
	o := other.(*dcountState)
	for g, dst := range into {
		d := &s.sets[dst]
		before := d.bytes()
		d.merge(&o.sets[g], s.p)
		s.bytes += d.bytes() - before
	}
}

func (s *dcountState) Result(n int) []*vector.Vector {
	counts := make([]int64, n)
	for g := 0; g < n; g++ {
		counts[g] = s.sets[g].count(s.p)
	}
	return []*vector.Vector{intsResult(vector.Int, counts, nil, n)}
}
