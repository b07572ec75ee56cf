package exec

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestMatcherAgainstNestedLoop compares both hash orientations with a
// nested-loop join over random keys with nulls and duplicates.
func TestMatcherAgainstNestedLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	mk := func(n int) *vector.Vector {
		v := vector.New(vector.Int, n)
		for i := 0; i < n; i++ {
			if rng.IntN(10) == 0 {
				v.AppendNull()
			} else {
				v.AppendInt(int64(rng.IntN(8)))
			}
		}
		return v
	}
	x := &Ctx{Ctx: context.Background(), Budget: NewMemBudget(0)}
	for round := 0; round < 50; round++ {
		nl, nr := rng.IntN(20), rng.IntN(20)
		l, r := mk(nl), mk(nr)
		for _, kind := range []joinKind{joinInner, joinInnerUnique, joinLeftOuter, joinRightOuter, joinFullOuter, joinLeftSemi, joinLeftAnti, joinRightSemi, joinRightAnti} {
			want := nestedLoop(l, r, kind)
			for _, buildL := range []bool{false, true} {
				m, err := newMatcher(x, []vector.Type{vector.Int}, []*vector.Vector{l}, []*vector.Vector{r}, nl, nr, buildL, 8)
				if err != nil {
					t.Fatal(err)
				}
				got, err := m.Plan(kind)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.l, want.l) || !slices.Equal(got.r, want.r) {
					t.Fatalf("kind %d buildL %v l=%v r=%v:\n got %v\nwant %v", kind, buildL, l.Ints, r.Ints, got, want)
				}
			}
		}
	}
}

// nestedLoop is the reference join: pairs in left-then-right order,
// unmatched right rows last.
func nestedLoop(l, r *vector.Vector, kind joinKind) joinPairs {
	eq := func(i, j int) bool { return !l.IsNull(i) && !r.IsNull(j) && l.Int(i) == r.Int(j) }
	var p joinPairs
	rMatched := make([]bool, r.Len)
	lMatched := make([]bool, l.Len)
	for i := 0; i < l.Len; i++ {
		for j := 0; j < r.Len; j++ {
			if eq(i, j) {
				lMatched[i], rMatched[j] = true, true
			}
		}
	}
	switch kind {
	case joinLeftSemi, joinLeftAnti:
		for i := 0; i < l.Len; i++ {
			if lMatched[i] == (kind == joinLeftSemi) {
				p.l = append(p.l, int32(i))
			}
		}
		return p
	case joinRightSemi, joinRightAnti:
		for j := 0; j < r.Len; j++ {
			if rMatched[j] == (kind == joinRightSemi) {
				p.r = append(p.r, int32(j))
			}
		}
		return p
	}
	for i := 0; i < l.Len; i++ {
		n := 0
		for j := 0; j < r.Len; j++ {
			if eq(i, j) && (kind != joinInnerUnique || n == 0) {
				p.l, p.r = append(p.l, int32(i)), append(p.r, int32(j))
				n++
			}
		}
		if n == 0 && (kind == joinLeftOuter || kind == joinFullOuter) {
			p.l, p.r = append(p.l, int32(i)), append(p.r, -1)
		}
	}
	if kind == joinRightOuter || kind == joinFullOuter {
		for j := 0; j < r.Len; j++ {
			if !rMatched[j] {
				p.l, p.r = append(p.l, -1), append(p.r, int32(j))
			}
		}
	}
	return p
}
