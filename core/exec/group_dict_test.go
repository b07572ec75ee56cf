package exec

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/aplite/aplite/vector"
)

// dictVec builds a dictionary-encoded string column from codes.
func dictVec(dict []string, codes []uint32) *vector.Vector {
	return &vector.Vector{Type: vector.String, Len: len(codes), Dict: dict, Codes: codes}
}

// TestDictTuplesGroupLikeTuples: grouping by several dictionary columns
// through the code-combination memo gives the same ids, in the same
// first-seen order, and the same keys as grouping the decoded strings.
func TestDictTuplesGroupLikeTuples(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d1, d2 := []string{"GET", "POST", "PUT"}, []string{"FRA", "IAD", "SYD", "GRU"}
	const n = 2000
	c1, c2 := make([]uint32, n), make([]uint32, n)
	for i := range n {
		c1[i], c2[i] = uint32(r.IntN(len(d1))), uint32(r.IntN(len(d2)))
	}
	rows := []int32{5, 6, 100, 1999, 7, 5}
	for _, sel := range [][]int32{nil, rows} {
		types := []vector.Type{vector.String, vector.String}
		fast, slow := newGroupTable(types), newGroupTable(types)
		m := n
		if sel != nil {
			m = len(sel)
		}
		a, b := make([]uint32, m), make([]uint32, m)
		dict := []*vector.Vector{dictVec(d1, c1), dictVec(d2, c2)}
		if !newGroupTable(types).assignDictTuples(dict, sel, make([]uint32, m)) {
			t.Fatal("the dictionary path was not taken")
		}
		fast.assign(dict, sel, n, a)
		plain := []*vector.Vector{dictVec(d1, c1).Materialize(), dictVec(d2, c2).Materialize()}
		for _, p := range plain {
			p.Decode()
		}
		slow.assign(plain, sel, n, b)
		if !reflect.DeepEqual(a, b) || fast.N != slow.N {
			t.Fatalf("sel %v: ids differ: %v vs %v", sel, a[:min(20, m)], b[:min(20, m)])
		}
		for k := range types {
			for gr := 0; gr < fast.N; gr++ {
				if fast.keys[k].Str(gr) != slow.keys[k].Str(gr) {
					t.Fatalf("group %d key %d: %q vs %q", gr, k, fast.keys[k].Str(gr), slow.keys[k].Str(gr))
				}
			}
		}
		if sel == nil && fast.N != len(d1)*len(d2) {
			t.Fatalf("%d groups, want %d", fast.N, len(d1)*len(d2))
		}
	}
}
