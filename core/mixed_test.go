package core

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
)

// mixedValue draws one value of a field that is mostly numbers: longs,
// reals (whole ones, negative zero, NaN and infinities among them),
// numeric and other strings, bools, and missing values. nan adds NaNs,
// which the comparisons cannot leave to the generated kernels; wide adds
// longs beyond 2^53, which a mixed side cannot hold.
func mixedValue(r *rand.Rand, wide, nan bool) any {
	switch p := r.IntN(100); {
	case p < 3:
		return []any{int64(1234567), 1234567.0, "1234567", "1.234567e+06", int64(-2000000), "-2000000", "-0", "NaN", "Infinity", "+Inf", 999999.5, "999999.5", int64(999999), "999999"}[r.IntN(14)]
	case p < 40 && mixedTies:
		return int64(r.IntN(4))
	case p < 40:
		return int64(r.IntN(400) - 50)
	case p < 75 && mixedTies:
		return []float64{0, 1, 2, 3, 2.5, math.Copysign(0, -1)}[r.IntN(6)]
	case p < 75:
		return math.Round(r.NormFloat64()*1e4) / 100
	case p < 77:
		x := []any{float64(r.IntN(5)), math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1e21, 1.5e-7, math.NaN()}[r.IntN(7)]
		if f := x.(float64); f != f && !nan {
			return 0.5
		}
		return x
	case p < 83:
		s := []string{"12.5", " 7 ", "200", "0x1F", "1e3", "-3", "9007199254740993", "1e+21", "1.5e-07", "-Infinity", "nan"}[r.IntN(11)]
		if s == "nan" && !nan {
			return "0.25"
		}
		return s
	case p < 89:
		return []string{"n/a", "abc", "", "N/A", "zz"}[r.IntN(5)]
	case p < 91:
		return r.IntN(2) == 1
	case p < 93 && wide:
		return int64(1<<53 + r.IntN(9) - 4)
	}
	return nil
}

// mixedTies narrows mixedValue's longs and reals to a few values, so
// equal values of different kinds (3 and 3.0, 0 and -0) meet in min, max,
// sort and grouping.
var mixedTies bool

// mixedEngine builds a memory store of n events whose field x mixes the
// values mixedValue draws, appended in batches of random size so the
// rows land in several blocks and the buffer.
func mixedEngine(t *testing.T, seed uint64, n int, wide, nan bool) *Engine {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	db := store.OpenMemory(store.Options{NoSync: true, SealRows: 1000})
	ds, err := db.Create("events")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i := 0; i < n; {
		rb := store.NewRowsBuilder()
		for end := min(n, i+1+r.IntN(900)); i < end; i++ {
			rb.Begin()
			rb.SetTime(t0 + int64(i)*int64(time.Second))
			rb.SetInt("k", int64(r.IntN(5)))
			switch x := mixedValue(r, wide, nan).(type) {
			case int64:
				rb.SetInt("x", x)
			case float64:
				rb.SetFloat("x", x)
			case string:
				rb.SetString("x", x)
			case bool:
				rb.SetBool("x", x)
			}
			rb.End(t0)
		}
		if _, err := ds.Append(rb.Finish(t0)); err != nil {
			t.Fatal(err)
		}
		// Flush now and then into blocks, never the last batch, which
		// stays in the buffer.
		if i < n && r.IntN(3) == 0 {
			if err := ds.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return NewEngine(exec.StoreCatalog(db))
}

// mixedQueries are the query kinds the mixed side serves, with constants
// of every type a comparison meets.
var mixedQueries = []string{
	`events | summarize a = avg(x), s = sum(x), lo = min(x), hi = max(x), p = percentile(x, 95), p5 = percentile(x, 5) by k | order by k`,
	`events | summarize a = avg(x), s = sum(x), lo = min(x), hi = max(x), c = count()`,
	`events | where k == 1 | summarize a = avg(x), s = sum(x), lo = min(x), hi = max(x), p = percentile(x, 50)`,
	`events | summarize lo = min(x), hi = max(x), s = sum(x), a = avg(x) by bin(_time, 7s) | order by _time asc`,
	`events | summarize lo = min(x), hi = max(x) by bin(_time, 5s) | summarize c = count() by tl = gettype(lo), th = gettype(hi) | order by tl asc, th asc`,
	`events | where x > 100 | summarize c = count(), s = sum(k)`,
	`events | where x >= 12.5 | count`,
	`events | where x < -3 | count`,
	`events | where 50 < x | count`,
	`events | where x == 200 | count`,
	`events | where x != 7 | count`,
	`events | where x == "n/a" | count`,
	`events | where x != "abc" | count`,
	`events | where x <= "12.5" | count`,
	`events | where x == true | count`,
	`events | where x > 9007199254740992 | count`,
	`events | where k < 3 and x > 0 | count`,
	`events | where k == 1 | where x > 5 | count`,
	`events | where k != 2 | where 7 >= x | summarize c = count(), s = sum(x)`,
	`events | where k != 3 | where x == "n/a" | count`,
	`events | top 10 by x`,
	`events | top 7 by x asc`,
	`events | where k == 2 | top 5 by x desc`,
	`events | sort by x asc, _time asc | take 30`,
	`events | where _time < datetime(2024-01-01 00:06:00) | sort by x desc | project x, _time`,
	`events | where _time < datetime(2024-01-01 00:10:00) | top 150 by x asc | project x, _time`,
	`events | summarize c = count() by x | order by c desc, x asc`,
	`events | summarize c = count() by x, k | order by c desc, k asc, x asc | take 40`, // x: groups tied on c and k come in any order
}

// TestMixedMatchesBoxed is the differential test of the mixed side: over
// random columns, every query kind answers what the boxed path answers.
func TestMixedMatchesBoxed(t *testing.T) {
	defer func() { mixedTies = false }()
	for seed := uint64(1); seed <= 8; seed++ {
		wide, nan := seed%3 == 0, seed%2 == 0
		mixedTies = seed > 6
		fast := mixedEngine(t, seed, 4000+int(seed)*300, wide, nan)
		boxed := mixedEngine(t, seed, 4000+int(seed)*300, wide, nan)
		for _, q := range mixedQueries {
			// One worker: rows with equal sort keys (3 and "3.0") come
			// in the order they arrive, which must be the same for both.
			one := func(r *exec.Request) { r.Workers = 1 }
			got := stableJSON(mustQuery(t, fast, q, one))
			exec.MixedColumns = false
			want := stableJSON(mustQuery(t, boxed, q, one))
			exec.MixedColumns = true
			if got != want {
				t.Errorf("seed %d: %s\n got %s\nwant %s", seed, q, got, want)
			}
		}
	}
}

// TestMixedSideCached checks that the engine reads a mixed field from
// sealed blocks with its unboxed side, kept in the column cache so the
// next query does not build it again.
func TestMixedSideCached(t *testing.T) {
	e := mixedEngine(t, 9, 2500, false, false)
	mustQuery(t, e, `events | where x > 0 | count`)
	e.cache.Mu.Lock()
	defer e.cache.Mu.Unlock()
	mixed := 0
	for k, el := range e.cache.Items {
		if k.Converted && k.Col.Name == "x" && el.Value.(*exec.ColCacheEntry).V.Mix() != nil {
			mixed++
		}
	}
	if mixed < 2 {
		t.Errorf("%d sealed blocks hold x with a mixed side in the cache, want at least 2", mixed)
	}
}
