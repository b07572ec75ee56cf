package exec

import (
	"testing"
)

// A buffer taken from a scratch is not lent again before reclaim, and is
// lent again, without allocating, after it.
func TestScratchReusesAfterReclaim(t *testing.T) {
	s := new(scratch)
	a, b := takeInts(s, 100), takeInts(s, 100)
	if &a[0] == &b[0] {
		t.Fatal("one buffer lent twice before reclaim")
	}
	s.reclaim()
	c := takeInts(s, 50)
	if &c[0] != &a[0] && &c[0] != &b[0] {
		t.Error("a reclaimed buffer was not reused")
	}
	if len(c) != 50 {
		t.Errorf("len %d, want 50", len(c))
	}
	if allocs := testing.AllocsPerRun(100, func() {
		s.reclaim()
		takeInts(s, 100)
		takeFloats(s, 100)
	}); allocs != 0 {
		t.Errorf("%v allocations per batch after the first, want 0", allocs)
	}
	if n := len(takeInts(nil, 7)); n != 7 {
		t.Errorf("without a scratch: %d elements, want 7", n)
	}
}
