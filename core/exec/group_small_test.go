package exec

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/aplite/aplite/vector"
)

// TestSmallLongTuplesGroupLikeTuples: grouping by a dictionary string and a
// long with a small side (method, status) through the code-combination
// memo gives the same ids and keys as grouping the plain columns, over
// batches whose small sides code the values in different orders.
func TestSmallLongTuplesGroupLikeTuples(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	methods := []string{"GET", "POST", "PUT"}
	statuses := []int64{200, 201, 404, 500, 503}
	types := []vector.Type{vector.String, vector.Int}
	fast, slow := newGroupTable(types), newGroupTable(types)
	for batch := range 3 {
		const n = 1000
		codes := make([]uint32, n)
		ints := vector.New(vector.Int, n)
		for i := range n {
			codes[i] = uint32(r.IntN(len(methods)))
			ints.AppendInt(statuses[(r.IntN(len(statuses))+batch)%len(statuses)])
		}
		small := ints.WithSmall()
		if s, _ := small.Small(); s == nil {
			t.Fatal("the status column has no small side")
		}
		cols := []*vector.Vector{dictVec(methods, codes), small}
		if !newGroupTable(types).assignDictTuples(cols, nil, make([]uint32, n)) {
			t.Fatal("the code-combination path was not taken for a long with a small side")
		}
		a, b := make([]uint32, n), make([]uint32, n)
		fast.assign(cols, nil, n, a)
		slow.assign([]*vector.Vector{dictVec(methods, codes).Materialize(), ints}, nil, n, b)
		if !reflect.DeepEqual(a, b) || fast.N != slow.N {
			t.Fatalf("batch %d: ids differ: %v vs %v", batch, a[:20], b[:20])
		}
	}
	for gr := 0; gr < fast.N; gr++ {
		if fast.keys[0].Str(gr) != slow.keys[0].Str(gr) || fast.keys[1].Ints[gr] != slow.keys[1].Ints[gr] {
			t.Fatalf("group %d: %q/%d vs %q/%d", gr, fast.keys[0].Str(gr), fast.keys[1].Ints[gr], slow.keys[0].Str(gr), slow.keys[1].Ints[gr])
		}
	}
	if fast.N != len(methods)*len(statuses) {
		t.Fatalf("%d groups, want %d", fast.N, len(methods)*len(statuses))
	}
}

// TestSmallLongWithNullsTakesTuples: a long with nulls is not memoized by
// code (a null's slot has a code too), so null stays its own group.
func TestSmallLongWithNullsTakesTuples(t *testing.T) {
	ints := vector.New(vector.Int, 4)
	ints.AppendInt(200)
	ints.AppendNull()
	ints.AppendInt(200)
	ints.AppendInt(500)
	cols := []*vector.Vector{dictVec([]string{"GET"}, []uint32{0, 0, 0, 0}), ints.WithSmall()}
	g := newGroupTable([]vector.Type{vector.String, vector.Int})
	out := make([]uint32, 4)
	g.assign(cols, nil, 4, out)
	if want := []uint32{0, 1, 0, 2}; !reflect.DeepEqual(out, want) || g.N != 3 {
		t.Fatalf("ids %v (%d groups), want %v", out, g.N, want)
	}
}
