package agg

import "github.com/aplite/aplite/vector"

// count() counts the rows of each group, nulls included: it has no
// argument to be null. countif(pred) counts the rows where pred is true.

func init() {
	Register(countSpec)
	Register(withIf(countSpec, "countif", "countif", 0,
		"Counts the rows of the group for which the predicate is true."))
}

var countSpec = &Spec{
	Name:    "count",
	APIName: "count",
	MinArgs: 0,
	MaxArgs: 0,
	Result:  fixed(vector.Int),
	New: func(*Context, []vector.Type, []any) (State, error) {
		return &countState{}, nil
	},
	Doc: "Counts the rows of the group.",
}

// countState keeps one counter per group.
type countState struct{ counts []int64 }

func (s *countState) Grow(n int) { s.counts = growInt64(s.counts, n) }

func (s *countState) Update(_ []*vector.Vector, _ []int32, groups []uint32) {
	counts := s.counts
	k := 0
	// Runs of one group are common (a summarize without by, or rows
	// sorted by time bin); counting four equal ids at once breaks the
	// store-to-load dependency that caps a plain counts[g]++ loop.
	for ; k+4 <= len(groups); k += 4 {
		g := groups[k]
		if groups[k+1] == g && groups[k+2] == g && groups[k+3] == g {
			counts[g] += 4
			continue
		}
		counts[g]++
		counts[groups[k+1]]++
		counts[groups[k+2]]++
		counts[groups[k+3]]++
	}
	for ; k < len(groups); k++ {
		counts[groups[k]]++
	}
}

// CountAdder is a count() state that takes a group's count whole, from a
// caller that counted the rows itself (summarize's dense counting).
type CountAdder interface {
	State
	// AddCount adds n rows to group g, which Grow has made exist.
	AddCount(g uint32, n int64)
}

// AddCount implements CountAdder.
func (s *countState) AddCount(g uint32, n int64) { s.counts[g] += n }

func (s *countState) Merge(other State, into []uint32) {
	o := other.(*countState)
	for g, dst := range into {
		s.counts[dst] += o.counts[g]
	}
}

func (s *countState) Result(n int) []*vector.Vector {
	return []*vector.Vector{intsResult(vector.Int, s.counts, nil, n)}
}
