package exec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/aplite/aplite/core/agg"
	"github.com/aplite/aplite/vector"
)

// fusedSink is a summarize sink of count() and countif(b), countif(i >=
// 500), countif(f < 0.5) by the dictionary column 0, over columns 1 (b),
// 2 (i) and 3 (f).
func fusedSink(t testing.TB) *aggSink {
	t.Helper()
	actx := &agg.Context{}
	countif := func(col int, f *condFilter) *aggCall {
		f.col = col
		return &aggCall{Spec: agg.Lookup("countif"), Ctx: actx, Args: []*Expr{{Typ: vector.Bool, Col: col}},
			Types: []vector.Type{vector.Bool}, Consts: []any{nil}, Conds: []*condFilter{f}}
	}
	st := &summarizeStage{Keys: []*Expr{{Typ: vector.String, Col: 0}}, TimeKey: -1, BinCol: -1, Aggs: []*aggCall{
		{Spec: agg.Lookup("count"), Ctx: actx},
		countif(1, &condFilter{kind: vector.Bool, want: true}),
		countif(2, &condFilter{kind: vector.Int, lo: 500, hi: math.MaxInt64}),
		countif(3, &condFilter{kind: vector.Float, flo: math.Inf(-1), fhi: math.Nextafter(0.5, -1)}),
	}}
	s, err := st.NewSink(&Ctx{Budget: &memBudget{}})
	if err != nil {
		t.Fatal(err)
	}
	sk := s.(*aggSink)
	if sk.fuse == nil {
		t.Fatal("count() and countif by a string key were not fused")
	}
	return sk
}

// TestFusedCountKernel feeds the fused sink batches with nulls in every
// predicate column, a selection, and a dictionary that changes between
// batches, and checks each group's counts and that groups come in order
// of first appearance; the key and the long column are read as they are
// and from their one-byte sides (vector/small.go).
func TestFusedCountKernel(t *testing.T) {
	for _, side := range []bool{false, true} {
		t.Run(fmt.Sprint("side=", side), func(t *testing.T) { testFusedCountKernel(t, side) })
	}
}

func testFusedCountKernel(t *testing.T, side bool) {
	sk := fusedSink(t)
	r := rand.New(rand.NewPCG(3, 4))
	type tot struct{ n, b, i, f int64 }
	want := map[string]*tot{}
	var order []string
	for batchNo := range 3 {
		const n = 5000
		dict := []string{"x", "y", "z", "w"}
		if batchNo == 2 {
			dict = []string{"v", "z", "x"} // another part's dictionary
		}
		key := &vector.Vector{Type: vector.String, Len: n, Dict: dict, Codes: make([]uint32, n)}
		bv := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n), Valid: vector.NewBitmapSet(n)}
		iv := &vector.Vector{Type: vector.Int, Len: n, Ints: make([]int64, n), Valid: vector.NewBitmapSet(n)}
		fv := &vector.Vector{Type: vector.Float, Len: n, Floats: make([]float64, n)}
		for k := range n {
			key.Codes[k] = uint32(r.IntN(len(dict)))
			if batchNo == 0 && k < 100 {
				key.Codes[k] = 2 // z first, then the others
			}
			bv.Bools[k] = r.IntN(3) == 0
			iv.Ints[k] = int64(r.IntN(250)) * 3 // 0..747, few enough for a side
			fv.Floats[k] = r.Float64()
			if k%7 == 0 {
				fv.Floats[k] = math.NaN()
			}
			if r.IntN(5) == 0 {
				bv.Valid.Clear(k)
				bv.Bools[k] = true // a null's slot must not count
			}
			if r.IntN(5) == 0 {
				iv.Valid.Clear(k)
				iv.Ints[k] = 550
			}
		}
		if side {
			key, iv = key.WithSmall(), iv.WithSmall()
			if c, _ := key.Small(); c == nil {
				t.Fatal("no byte codes for the key")
			}
			if c, _ := iv.Small(); c == nil {
				t.Fatal("no side for the long column")
			}
		}
		b := NewBatch([]*vector.Vector{key, bv, iv, fv}, n)
		if batchNo == 1 {
			for k := 0; k < n; k += 3 {
				b.Sel = append(b.Sel, int32(k))
			}
		}
		ok, err := sk.countFused(b, key)
		if err != nil || !ok {
			t.Fatalf("batch %d: fused counting refused (%v)", batchNo, err)
		}
		for k := range b.Rows() {
			i := row(b.Sel, k)
			s := dict[key.Codes[i]]
			w := want[s]
			if w == nil {
				w = &tot{}
				want[s] = w
				order = append(order, s)
			}
			w.n++
			w.b += int64(b2i(bv.Valid.Get(i) && bv.Bools[i]))
			w.i += int64(b2i(iv.Valid.Get(i) && iv.Ints[i] >= 500))
			w.f += int64(b2i(fv.Floats[i] < 0.5))
		}
	}
	keys := sk.Groups.keys[0]
	if keys.Len != len(order) {
		t.Fatalf("%d groups, want %d", keys.Len, len(order))
	}
	res := make([][]*vector.Vector, len(sk.states))
	for a, s := range sk.states {
		res[a] = s.Result(keys.Len)
	}
	for g := range keys.Len {
		if keys.Str(g) != order[g] {
			t.Fatalf("group %d is %q, want %q (order of first appearance %v)", g, keys.Str(g), order[g], order)
		}
		w := want[order[g]]
		got := tot{res[0][0].Int(g), res[1][0].Int(g), res[2][0].Int(g), res[3][0].Int(g)}
		if got != *w {
			t.Errorf("group %s: got %+v, want %+v", order[g], got, *w)
		}
	}
}

// TestFusedCountRefuses: batches the kernel cannot read go to the general
// path, which answers them (a null key, a != over a nullable column, a
// dictionary too large for the cells, a plain string key).
func TestFusedCountRefuses(t *testing.T) {
	const n = 64
	bv := &vector.Vector{Type: vector.Bool, Len: n, Bools: make([]bool, n)}
	iv := &vector.Vector{Type: vector.Int, Len: n, Ints: make([]int64, n)}
	fv := &vector.Vector{Type: vector.Float, Len: n, Floats: make([]float64, n)}
	big := make([]string, fuseCells)
	for i := range big {
		big[i] = fmt.Sprint(i)
	}
	for name, key := range map[string]*vector.Vector{
		"null key":   {Type: vector.String, Len: n, Dict: []string{"a"}, Codes: make([]uint32, n), Valid: vector.NewBitmap(n)},
		"plain":      {Type: vector.String, Len: n, Strs: make([]string, n)},
		"large dict": {Type: vector.String, Len: n, Dict: big, Codes: make([]uint32, n)},
	} {
		sk := fusedSink(t)
		if ok, _ := sk.countFused(NewBatch([]*vector.Vector{key, bv, iv, fv}, n), key); ok {
			t.Errorf("%s: fused", name)
		}
	}
	sk := fusedSink(t)
	sk.fuse.filters[1].nullTrue = true
	key := &vector.Vector{Type: vector.String, Len: n, Dict: []string{"a"}, Codes: make([]uint32, n)}
	nullable := &vector.Vector{Type: vector.Int, Len: n, Ints: make([]int64, n), Valid: vector.NewBitmap(n)}
	if ok, _ := sk.countFused(NewBatch([]*vector.Vector{key, bv, nullable, fv}, n), key); ok {
		t.Error("!= over a nullable column: fused")
	}
}
