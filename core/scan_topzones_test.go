package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/internal/testutil"
)

// zoneDB builds dataset "t" of parts blocks of rows events each, for the
// zone maps: id is unique; x mixes longs and reals in one block (one
// merged column) with ties and nulls; f is a real, mostly distinct,
// with NaN, ±Inf, -0, ties and nulls; n is null over whole zones; _time runs forward.
func zoneDB(t *testing.T, seed uint64, parts, rows int) *store.DB {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create("t")
	if err != nil {
		t.Fatal(err)
	}
	base := fixtureNow.Add(-48 * 3600e9).UnixNano()
	id := int64(0)
	for p := range parts {
		b := store.NewRowsBuilder()
		for r := range rows {
			b.Begin()
			b.SetTime(base + id*1e9)
			b.SetInt("id", id)
			switch {
			case rng.IntN(10) == 0: // x missing: null
			case r%4 == 0:
				b.SetFloat("x", float64(rng.IntN(300))+0.5)
			case rng.IntN(500) == 0: // a spike, so zones differ
				b.SetInt("x", int64(1000+rng.IntN(50)))
			default:
				b.SetInt("x", int64(rng.IntN(300)))
			}
			switch k := rng.IntN(60); {
			case k < 7: // f missing: null
			case k == 7:
				b.SetFloat("f", math.NaN())
			case id == 100: // one of each
				b.SetFloat("f", math.Inf(1))
			case id == 200:
				b.SetFloat("f", math.Inf(-1))
			case k == 9:
				b.SetFloat("f", math.Copysign(0, -1))
			case k == 10:
				b.SetFloat("f", float64(rng.IntN(8))) // ties
			default: // distinct, so the best rows lie in many zones,
				// and each part's range its own, so one part holds them
				b.SetFloat("f", rng.Float64()*100-50+float64(30*p))
			}
			// n is null for the first zones of a part and in every
			// fifth zone, else a value.
			if zone := r / exec.ZoneRows; zone >= 2 && zone%5 != 0 {
				b.SetInt("n", int64(p*10+rng.IntN(40)))
			}
			b.End(fixtureNow.UnixNano())
			id++
		}
		if _, err := ds.Append(b.Finish(fixtureNow.UnixNano())); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestTopZonesEqualFullSort: sort | take N and top N with the zone maps
// (column cache on, queries repeated so the second finds the zones built)
// give the first N rows of the full sort without them (column cache
// off), over merged long/real keys, NaN, ±Inf, -0, nulls in some zones
// and whole zones of nulls, both directions and null placements, ties,
// with a where before the top and a time window that cuts a part.
func TestTopZonesEqualFullSort(t *testing.T) {
	keys := []string{
		"x desc", "x asc", "x desc nulls first", "x asc nulls last",
		"f desc", "f asc", "f asc nulls last", "f desc nulls first",
		"n desc", "n asc", "n asc nulls last", "n desc nulls first", "_time desc", "_time asc",
	}
	filters := []string{"", "| where id % 3 != 0 ", "| where _time >= datetime(2024-03-25T01:10:00Z) "}
	seeds := uint64(2)
	if testutil.Race {
		// Of 3,360 queries, the 480 of one seed and one key per column
		// still drive every path of the top under the race detector
		// (where all of them took ten minutes on two loaded cores).
		seeds, keys = 1, []string{"x desc", "f asc nulls last", "n desc nulls first", "_time asc"}
	}
	for seed := range seeds {
		// Twelve zones a part, so the zones can seed thresholds up to
		// take 12.
		e := NewEngine(exec.StoreCatalog(zoneDB(t, seed, 2, 12*exec.ZoneRows+300)))
		for _, k := range keys {
			for _, filter := range filters {
				src := "t " + filter
				full := rows(mustQuery(t, e, fmt.Sprintf("%s| sort by %s, id asc | project id, x, f, n, _time", src, k),
					func(r *exec.Request) { r.Workers = 1; r.NoColumnCache = true }))
				for _, n := range []int{1, 3, 5, 10, 300} {
					if n > len(full) {
						continue
					}
					want := fmt.Sprint(full[:n])
					for _, w := range []int{1, 4} {
						for run := range 2 {
							q := fmt.Sprintf("%s| sort by %s, id asc | take %d | project id, x, f, n, _time", src, k, n)
							got := fmt.Sprint(rows(mustQuery(t, e, q, func(r *exec.Request) { r.Workers = w })))
							if got != want {
								t.Fatalf("seed %d, %d workers, run %d: %s\n got %s\nwant %s", seed, w, run, q, got, want)
							}
							k1 := strings.Fields(k)[0]
							q = fmt.Sprintf("%s| top %d by %s | project id, %s", src, n, k, k1)
							checkTopKeys(t, q, rows(mustQuery(t, e, q, func(r *exec.Request) { r.Workers = w })), full[:n], zoneCols[k1])
						}
					}
				}
			}
		}
	}
}

// zoneCols is where each key of the zone tests' rows stands.
var zoneCols = map[string]int{"x": 1, "f": 2, "n": 3, "_time": 4}

// TestTopZonesSkipRows: with the column cache, sort | take over one
// block of 150,000 rows hands the top only the zones that can hold its
// rows (rowsMatched, the rows that reach the top, falls from every row to
// a few zones), the same with a where before the top; without the cache
// every row still reaches it, and the answers agree.
func TestTopZonesSkipRows(t *testing.T) {
	const rowsN = 150_000
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create("t")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	b := store.NewRowsBuilder()
	for i := range rowsN {
		b.Begin()
		b.SetTime(fixtureNow.UnixNano() - int64(rowsN-i)*1e6)
		// A long most of the time, a real now and then: one merged
		// column, as req_duration_ms is in real logs.
		if i%3 == 0 {
			b.SetFloat("d", rng.ExpFloat64()*1e6+0.5)
		} else {
			b.SetInt("d", int64(rng.ExpFloat64()*1e6))
		}
		b.SetInt("s", int64(rng.IntN(10)))
		// dm is d with a word now and then: a dynamic column.
		if i%997 == 0 {
			b.SetString("dm", "n/a")
		} else {
			b.SetInt("dm", int64(rng.ExpFloat64()*1e6))
		}
		b.End(fixtureNow.UnixNano())
	}
	if _, err := ds.Append(b.Finish(fixtureNow.UnixNano())); err != nil {
		t.Fatal(err)
	}
	if err := ds.Flush(); err != nil {
		t.Fatal(err)
	}
	e := NewEngine(exec.StoreCatalog(db))
	for _, c := range []struct {
		q string
		// max is how many rows may reach the top with zones and one
		// worker, max2 with two, cold how many reach it without (the
		// where keeps about half). Behind a where the zones cannot seed
		// the threshold: the first morsel of each worker is read whole.
		max, max2, cold int64
	}{
		{"t | sort by d desc, _time asc | take 10 | project d, s", 20 * exec.ZoneRows, 20 * exec.ZoneRows, rowsN},
		{"t | sort by d asc, _time asc | take 10 | project d, s", 20 * exec.ZoneRows, 20 * exec.ZoneRows, rowsN},
		{"t | where s >= 5 | sort by d desc, _time asc | take 10 | project d, s", rowsN / 3, rowsN / 2, rowsN * 4 / 10},
		// Numbers sort before words: the smallest are numbers.
		{"t | sort by dm asc, _time asc | take 10 | project dm, s", 20 * exec.ZoneRows, 20 * exec.ZoneRows, rowsN},
	} {
		for _, w := range []int{1, 2} {
			cold := mustQuery(t, e, c.q, func(r *exec.Request) { r.Workers = w; r.NoColumnCache = true })
			if cold.Stats.RowsMatched < c.cold {
				t.Fatalf("%s without the cache: %d rows reached the top; the test expects every row to", c.q, cold.Stats.RowsMatched)
			}
			for run := range 2 {
				hot := mustQuery(t, e, c.q, func(r *exec.Request) { r.Workers = w })
				if got, want := fmt.Sprint(rows(hot)), fmt.Sprint(rows(cold)); got != want {
					t.Fatalf("%s, %d workers, run %d: %s with zones, %s without", c.q, w, run, got, want)
				}
				limit := c.max
				if w > 1 {
					limit = c.max2
				}
				if m := hot.Stats.RowsMatched; m > limit {
					t.Errorf("%s, %d workers, run %d: %d of %d rows reached the top, want at most %d", c.q, w, run, m, rowsN, limit)
				}
			}
		}
	}
}

// TestTopMixedFieldPrunedEqualsFullSort: over a field mixing longs, reals,
// numeric strings, words, bools, NaN and ±Inf, which tops now prune by
// dynAscKey (the threshold, zones), sort | take N gives the first N rows of
// the full sort, boxed and with the mixed side, with and without the
// column cache, in both directions and null placements.
func TestTopMixedFieldPrunedEqualsFullSort(t *testing.T) {
	defer func() { exec.MixedColumns, mixedTies = true, false }()
	for _, c := range []struct{ boxed, ties, wide bool }{{false, false, false}, {true, false, true}, {false, true, false}} {
		exec.MixedColumns, mixedTies = !c.boxed, c.ties
		e := mixedEngine(t, 5, 5000, c.wide, true)
		for _, k := range []string{"x desc", "x asc", "x desc nulls first", "x asc nulls last"} {
			full := rows(mustQuery(t, e, fmt.Sprintf("events | sort by %s, _time asc | project x = tostring(x), _time", k),
				func(r *exec.Request) { r.Workers = 1; r.NoColumnCache = true }))
			for _, n := range []int{1, 7, 60} {
				want := fmt.Sprint(full[:n])
				q := fmt.Sprintf("events | sort by %s, _time asc | take %d | project x = tostring(x), _time", k, n)
				for _, w := range []int{1, 4} {
					for _, cache := range []bool{false, true, true} {
						got := fmt.Sprint(rows(mustQuery(t, e, q, func(r *exec.Request) { r.Workers = w; r.NoColumnCache = !cache })))
						if got != want {
							t.Fatalf("%+v, %d workers, cache %v: %s\n got %s\nwant %s", c, w, cache, q, got, want)
						}
					}
				}
			}
		}
	}
}
