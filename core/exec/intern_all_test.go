package exec

import (
	"slices"
	"sync"
	"testing"
)

// internAll (one lock for a whole dictionary) gives every entry the id
// id gives it, repeated entries one id, and stays consistent while other
// workers intern the same strings one at a time.
func TestInternAllMatchesID(t *testing.T) {
	in := NewInterner()
	pre := in.id("b")
	got := in.internAll([]string{"a", "b", "a", "c"})
	if got[1] != pre || got[0] != got[2] || got[0] == got[3] || got[0] == pre || got[3] == pre {
		t.Fatalf("ids %v (b was %d)", got, pre)
	}
	for i, s := range []string{"a", "b", "a", "c"} {
		if id := in.id(s); id != got[i] {
			t.Errorf("id(%q) = %d, internAll gave %d", s, id, got[i])
		}
	}
	d := make([]string, 2000)
	for i := range d {
		d[i] = string(rune('A'+i%50)) + string(rune('a'+i/50))
	}
	var wg sync.WaitGroup
	res := make([][]uint32, 4)
	for w := range res {
		wg.Go(func() {
			if w%2 == 0 {
				res[w] = in.internAll(d)
				return
			}
			for _, s := range d {
				res[w] = append(res[w], in.id(s))
			}
		})
	}
	wg.Wait()
	for w := 1; w < len(res); w++ {
		if !slices.Equal(res[w], res[0]) {
			t.Fatalf("worker %d got other ids", w)
		}
	}
}
