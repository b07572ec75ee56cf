package agg

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/aplite/aplite/vector"
)

func TestDcountExact(t *testing.T) {
	// Nulls are not a value; empty and all-null groups count 0.
	s := dictCol("a", "b", "a", nil, "c", nil, "a")
	res := run(t, "dcount", 4, []uint32{0, 0, 0, 0, 1, 2, 1}, s)
	expect(t, "dict", res[0], int64(2), int64(2), int64(0), int64(0))

	plain := col(vector.String, "x", "y", "x", "")
	expect(t, "plain", run(t, "dcount", 1, make([]uint32, 4), plain)[0], int64(3))

	// 0 and -0 are one real, NaNs one value.
	fl := col(vector.Float, 0.0, math.Copysign(0, -1), math.NaN(), math.NaN(), math.Inf(1))
	expect(t, "reals", run(t, "dcount", 1, make([]uint32, 5), fl)[0], int64(3))

	t0 := time.Unix(1700000000, 0).UTC()
	dt := col(vector.DateTime, t0, t0, t0.Add(time.Nanosecond))
	expect(t, "datetime", run(t, "dcount", 1, make([]uint32, 3), dt)[0], int64(2))

	dyn := col(vector.Dynamic, map[string]any{"a": int64(1), "b": "x"}, map[string]any{"b": "x", "a": 1.0}, []any{int64(1)}, nil)
	expect(t, "dynamic", run(t, "dcount", 1, make([]uint32, 4), dyn)[0], int64(2))

	expect(t, "bool", run(t, "dcount", 1, make([]uint32, 3), col(vector.Bool, true, false, true))[0], int64(2))
	expect(t, "const", run(t, "dcount", 2, []uint32{0, 1, 1}, cnst(vector.Int, int64(4), 3))[0], int64(1), int64(1))

	// Exact up to the threshold.
	var ints []any
	for i := 0; i < exactDistinct; i++ {
		ints = append(ints, int64(i*7919), int64(i*7919))
	}
	expect(t, "threshold", run(t, "dcount", 1, make([]uint32, len(ints)), col(vector.Int, ints...))[0], int64(exactDistinct))
}

func TestDcountifAndAccuracy(t *testing.T) {
	x := col(vector.Int, int64(1), int64(2), int64(3), int64(3))
	p := col(vector.Bool, true, false, true, true)
	expect(t, "dcountif", run(t, "dcountif", 1, make([]uint32, 4), x, p)[0], int64(2))
	acc := cnst(vector.Int, int64(0), 4)
	expect(t, "dcountif accuracy", run(t, "dcountif", 1, make([]uint32, 4), x, p, acc)[0], int64(2))
	if s := Lookup("dcountif"); s.ConstArgs[0] != 2 {
		t.Errorf("dcountif's accuracy is argument %d, want 2", s.ConstArgs[0])
	}
	if _, err := Lookup("dcount").New(&Context{}, []vector.Type{vector.Int, vector.Int}, []any{nil, int64(9)}); err == nil {
		t.Error("dcount accepted accuracy 9")
	}
}

// TestDcountError measures the estimate's relative error at 1e5 and 1e6
// distinct values for each accuracy level and requires it within three
// standard errors (1.04/sqrt(m)). The figures quoted in dcount.go come
// from this test's log (go test -run DcountError -v).
func TestDcountError(t *testing.T) {
	for _, tc := range []struct {
		level int64
		p     uint
	}{{0, 12}, {1, 14}, {2, 16}} {
		for _, n := range []int{100000, 1000000} {
			if testing.Short() && n > 100000 {
				continue
			}
			st := newState(t, "dcount", []*vector.Vector{col(vector.Int), cnst(vector.Int, tc.level, 0)})
			st.Grow(1)
			const batch = 8192
			v := &vector.Vector{Type: vector.Int, Ints: make([]int64, batch)}
			groups := make([]uint32, batch)
			for start := 0; start < n; start += batch {
				m := min(batch, n-start)
				for i := 0; i < m; i++ {
					v.Ints[i] = int64(start+i)*2654435761 + 12345 // distinct, not sequential
				}
				v.Len = m
				st.Update([]*vector.Vector{v}, nil, groups[:m])
			}
			got := values(st.Result(1)[0])[0].(int64)
			rel := float64(got-int64(n)) / float64(n)
			se := 1.04 / math.Sqrt(float64(uint(1)<<tc.p))
			t.Logf("accuracy %d (2^%d registers, standard error %.2f%%): %d distinct -> %d (%+.3f%%)",
				tc.level, tc.p, 100*se, n, got, 100*rel)
			if math.Abs(rel) > 3*se {
				t.Errorf("accuracy %d: %d distinct estimated as %d (%.2f%%)", tc.level, n, got, 100*rel)
			}
		}
	}
}

func TestDcountMerge(t *testing.T) {
	fx := newFixture(900, 5)
	checkMerge(t, "dcount", fx.n, fx.groups, fx.s)
	checkMerge(t, "dcount", fx.n, fx.groups, fx.f)
	checkMerge(t, "dcountif", fx.n, fx.groups, fx.i, fx.b)

	// Sketch + exact and sketch + sketch merges: the merged estimate must
	// equal the one-pass estimate exactly (HLL merge is lossless).
	var vals []any
	var groups []uint32
	for i := 0; i < 6000; i++ {
		vals = append(vals, fmt.Sprintf("user-%d", i%2500))
		groups = append(groups, uint32(i%2))
	}
	checkMerge(t, "dcount", 2, groups, col(vector.String, vals...))
}
