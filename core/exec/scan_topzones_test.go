package exec

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"weak"

	"github.com/aplite/aplite/vector"
)

// TestBuildZones: each zone's best rank is the best rank of its non-null
// rows, with NaN, ±Inf, -0 and extreme longs, and its null content is
// right, in both directions.
func TestBuildZones(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, -1e300, 1e300}
	n := 5*ZoneRows + 77
	fv := vector.New(vector.Float, n)
	iv := vector.New(vector.Int, n)
	fn := vector.New(vector.Float, n) // with nulls, one zone all null
	for i := range n {
		f := float64(rng.IntN(1000)) - 500
		if rng.IntN(50) == 0 {
			f = specials[rng.IntN(len(specials))]
		}
		if i/ZoneRows == 3 { // a zone of NaN alone
			f = math.NaN()
		}
		fv.AppendFloat(f)
		x := int64(rng.IntN(1000)) - 500
		if rng.IntN(100) == 0 {
			x = []int64{math.MinInt64, math.MaxInt64}[rng.IntN(2)]
		}
		iv.AppendInt(x)
		if i/ZoneRows == 1 || rng.IntN(7) == 0 {
			fn.AppendNull()
		} else {
			fn.AppendFloat(f)
		}
	}
	for _, v := range []*vector.Vector{fv, iv, fn} {
		for _, desc := range []bool{false, true} {
			z := buildZones(v, desc)
			for zi := range z.best {
				var best uint64
				seen, null := false, false
				for i := zi * ZoneRows; i < min((zi+1)*ZoneRows, n); i++ {
					if v.IsNull(i) {
						null = true
						continue
					}
					if r := rankAt(v, i, desc); !seen || r > best {
						best, seen = r, true
					}
				}
				wantNulls := zoneNoNull
				switch {
				case !seen:
					wantNulls = zoneAllNull
				case null:
					wantNulls = zoneSomeNull
				}
				if z.nulls[zi] != wantNulls || (seen && z.best[zi] != best) {
					t.Errorf("%v (nulls %v) desc=%v zone %d: best %d nulls %d, want %d and %d", v.Type, v.HasNulls(), desc, zi, z.best[zi], z.nulls[zi], best, wantNulls)
				}
			}
			// The n-th best zone bounds the n-th best row from below.
			for _, k := range []int{1, 3, 5, 6} {
				thr, ok := z.nthBest(k)
				if !ok {
					continue
				}
				at := 0
				for i := range n {
					if !v.IsNull(i) && rankAt(v, i, desc) >= thr {
						at++
					}
				}
				if at < k {
					t.Errorf("%v desc=%v: %d rows rank at or above the %d-th best zone", v.Type, desc, at, k)
				}
			}
		}
	}
}

// TestZonesGoWithTheirColumn: the zones of a column are dropped once the
// column is collected (it left the cache), so they hold no memory of
// their own.
func TestZonesGoWithTheirColumn(t *testing.T) {
	v := vector.New(vector.Float, 3*ZoneRows)
	for i := range 3 * ZoneRows {
		v.AppendFloat(float64(i))
	}
	if z := zonesOf(v, true); len(z.best) != 3 || z.best[2] != floatRank(3*ZoneRows-1, true) {
		t.Fatalf("zones %v", z.best)
	}
	if zonesOf(v, true) != zonesOf(v, true) {
		t.Fatal("the zones of a column were built twice")
	}
	k := zoneKey{weak.Make(v), true}
	if _, ok := zoneTable.Load(k); !ok {
		t.Fatal("the zones are not in the table")
	}
	v = nil
	for range 100 {
		runtime.GC()
		if _, ok := zoneTable.Load(k); !ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the zones stayed after their column was collected")
}

// TestDynRankOrdersAsOrderAny: the key a top prunes dynamic values by
// never decreases along the sort's order and is equal for equal values,
// so a row the threshold drops sorts after the N-th best; and a row ranks
// the same read from the mixed side or boxed.
func TestDynRankOrdersAsOrderAny(t *testing.T) {
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	vals := []any{math.NaN(), math.Inf(-1), int64(-5), false, "0.5", true, 2.5, "10", int64(11), 90 * time.Second,
		"-0", math.Copysign(0, -1), 0.0, int64(0), "1e3", 1000.0, int64(1 << 60), math.Inf(1), "Infinity",
		// Longs beyond 2^53 order as longs, and against reals exactly.
		int64(1<<53 - 1), int64(1 << 53), int64(1<<53 + 1), float64(1 << 53), float64(1<<53 + 2), int64(-1<<53 - 1), float64(-1 << 53),
		int64(math.MaxInt64), int64(math.MinInt64), float64(1 << 63), 9.3e18,
		time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), day, day.Add(time.Hour),
		time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC), "", "abc", "abcdefgh", "abcdefghi", "abcdefghj", "abcdefgi", "n/a", "\xff\xff",
		[]any{int64(1)}, []any{int64(2)}, map[string]any{"a": int64(1)}}
	for _, a := range vals {
		for _, b := range vals {
			ka, kb := dynAscKey(a), dynAscKey(b)
			switch o := orderAny(a, b); {
			case o < 0 && ka > kb, o == 0 && ka != kb, o > 0 && ka < kb:
				t.Errorf("orderAny(%#v, %#v) = %d but keys %x, %x", a, b, o, ka, kb)
			}
		}
	}
	// A long beyond 2^53 leaves a column without a mixed side.
	vals = slices.DeleteFunc(vals, func(x any) bool { i, ok := x.(int64); return ok && (i > 1<<53 || i < -1<<53) })
	boxed := vector.New(vector.Dynamic, len(vals))
	for _, x := range vals {
		boxed.AppendDyn(x)
	}
	mixed := withMixed(boxed)
	if mixed.Mix() == nil {
		t.Fatal("no mixed side")
	}
	for i := range vals {
		for _, desc := range []bool{false, true} {
			want := dynAscKey(vals[i])
			if !desc {
				want = ^want
			}
			if r, rb := rankAt(mixed, i, desc), rankAt(boxed, i, desc); r != want || rb != want {
				t.Errorf("%#v desc=%v: rank %x mixed, %x boxed, want %x", vals[i], desc, r, rb, want)
			}
		}
	}
}
