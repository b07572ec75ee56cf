package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aplite/aplite/vector"
)

// feedFused returns two fused count/countif sinks (one per scan worker)
// fed different random batches from seed.
func feedFused(t *testing.T, seed uint64) []sink {
	r := rand.New(rand.NewPCG(seed, 1))
	var sinks []sink
	for w := range 2 {
		sk := fusedSink(t)
		for range 3 {
			const n = 4000
			dict := []string{"x", "y", "z", "w", fmt.Sprint("only-", w)}
			key := &vector.Vector{Type: vector.String, Len: n, Dict: dict, Codes: make([]uint32, n)}
			bv := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n)}
			iv := &vector.Vector{Type: vector.Int, Len: n, Ints: make([]int64, n)}
			fv := &vector.Vector{Type: vector.Float, Len: n, Floats: make([]float64, n)}
			for k := range n {
				key.Codes[k] = uint32(r.IntN(len(dict)))
				bv.Bools[k] = r.IntN(3) == 0
				iv.Ints[k] = int64(r.IntN(1000))
				fv.Floats[k] = r.Float64()
			}
			ok, err := sk.countFused(NewBatch([]*vector.Vector{key, bv, iv, fv}, n), key)
			if err != nil || !ok {
				t.Fatalf("fused counting refused (%v)", err)
			}
		}
		sinks = append(sinks, sk)
	}
	return sinks
}

// A query node merges its workers' summarize sinks before they travel:
// one state goes out, and the receiving node's answer is the one it
// would have made from the workers' states itself.
func TestCombineSinksAnswersAsFinish(t *testing.T) {
	sinks := feedFused(t, 7)
	st := sinks[0].(*aggSink).st
	st.Sch = Schema{{Name: "k", Type: vector.String}, {Name: "n", Type: vector.Int}, {Name: "b", Type: vector.Int},
		{Name: "i", Type: vector.Int}, {Name: "f", Type: vector.Int}}
	x := &Ctx{Budget: NewMemBudget(0)} // Finish charges the merge
	want, err := st.Finish(x, sinks)
	if err != nil {
		t.Fatal(err)
	}
	again := feedFused(t, 7)
	for _, sk := range again {
		sk.(*aggSink).st = st
	}
	combined := st.combineSinks(again)
	if len(combined) != 1 {
		t.Fatalf("combineSinks left %d sinks", len(combined))
	}
	b, err := st.EncodeSink(combined[0])
	if err != nil {
		t.Fatal(err)
	}
	back, err := st.decodeSink(x, b)
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Finish(x, []sink{back})
	if err != nil {
		t.Fatal(err)
	}
	if got.N != want.N || got.N != 6 {
		t.Fatalf("%d groups combined, %d from the workers' sinks (want 6)", got.N, want.N)
	}
	for c := range want.Cols {
		for i := range want.N {
			if w, g := fmt.Sprint(want.Cols[c].Value(i)), fmt.Sprint(got.Cols[c].Value(i)); w != g {
				t.Errorf("row %d column %d: %s combined, %s from the workers' sinks", i, c, g, w)
			}
		}
	}
}
