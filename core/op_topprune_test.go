package core

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// topDB builds dataset "t" of parts blocks of rows events each: id is
// unique; x is a long with many ties, sometimes missing (null) and in some
// blocks a real; f is a real with ties and nulls. Block ranges overlap
// (each block's values are drawn around an offset of its own), and one
// block lacks x altogether.
func topDB(t *testing.T, seed uint64, parts, rows int) *store.DB {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create("t")
	if err != nil {
		t.Fatal(err)
	}
	id := 0
	for p := range parts {
		off := rng.IntN(40) - 20
		var body strings.Builder
		for r := range rows {
			fmt.Fprintf(&body, `{"_time":"2024-03-01T00:%02d:%02d.%06dZ","id":%d`, p%60, r%60, id, id)
			switch {
			case p == 2: // no x in this block
			case rng.IntN(10) == 0: // null x
			case p == 3:
				fmt.Fprintf(&body, `,"x":%d.5`, off+rng.IntN(30))
			default:
				fmt.Fprintf(&body, `,"x":%d`, off+rng.IntN(30))
			}
			if rng.IntN(8) != 0 {
				fmt.Fprintf(&body, `,"f":%g`, float64(off+rng.IntN(25))/4)
			}
			if rng.IntN(6) != 0 {
				fmt.Fprintf(&body, `,"b":%v`, rng.IntN(3) == 0)
			}
			fmt.Fprintf(&body, `,"i":%d,"s":"%c"`, rng.IntN(9)-4, 'a'+rng.IntN(4))
			body.WriteString("}\n")
			id++
		}
		b := store.NewRowsBuilder()
		res, err := ingest.Decode([]byte(body.String()), ingest.Options{Format: ingest.NDJSON, Now: fixtureNow.UnixNano()}, b)
		if err != nil || res.Failed > 0 {
			t.Fatalf("ingest: %v %+v", err, res.Failures)
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

// TestTopPruningEqualsFullSort: top N and sort | take N, pruned by the
// shared threshold and by block statistics, give the first N rows of the
// full sort, over blocks with ties, nulls, NaN, a missing column, a block
// of another type and overlapping ranges, with one worker and several.
func TestTopPruningEqualsFullSort(t *testing.T) {
	keys := []string{
		"x desc", "x asc", "x desc nulls first", "x asc nulls last",
		"f desc", "f asc", "f asc nulls last", "f desc nulls first",
		"g desc", "g asc", "g asc nulls last", "h asc", "h desc", "_time desc", "_time asc",
	}
	for seed := range uint64(4) {
		e := NewEngine(exec.StoreCatalog(topDB(t, seed, 9, 700)))
		// g puts NaN where f is large, h on every 7th row and has no
		// nulls: not stored columns, so only the row filter prunes them.
		const src = `t | extend g = iff(f > 3, todouble("nan"), f), h = iff(id % 7 == 0, todouble("nan"), todouble(id % 13))`
		for _, k := range keys {
			// id breaks ties, so the full sort has one answer.
			full := rows(mustQuery(t, e, fmt.Sprintf("%s | sort by %s, id asc | project id, x, f, g, _time, h", src, k),
				func(r *exec.Request) { r.Workers = 1 }))
			for _, n := range []int{1, 5, 37, 300} {
				want := fmt.Sprint(full[:n])
				for _, w := range []int{1, 4} {
					q := fmt.Sprintf("%s | sort by %s, id asc | take %d | project id, x, f, g, _time, h", src, k, n)
					got := fmt.Sprint(rows(mustQuery(t, e, q, func(r *exec.Request) { r.Workers = w })))
					if got != want {
						t.Fatalf("seed %d, %d workers: %s\n got %s\nwant %s", seed, w, q, got, want)
					}
					// With one key, ties may be broken either way: the
					// keys must match, and each row must be a real one.
					k1 := strings.Fields(k)[0]
					q = fmt.Sprintf("%s | top %d by %s | project id, %s", src, n, k, k1)
					checkTopKeys(t, q, rows(mustQuery(t, e, q, func(r *exec.Request) { r.Workers = w })), full[:n], topPruneCols[k1])
				}
			}
		}
	}
}

// topPruneCols is where each key of the pruning tests' rows stands.
var topPruneCols = map[string]int{"x": 1, "f": 2, "g": 3, "_time": 4, "h": 5}

// checkTopKeys compares the key column of a single-key top (column col
// of full; column 1 of got) with the full sort's (ties may be broken
// either way) and checks that every returned (id, key) row exists.
func checkTopKeys(t *testing.T, q string, got, full [][]any, col int) {
	t.Helper()
	if len(got) != len(full) {
		t.Fatalf("%s: %d rows, want %d", q, len(got), len(full))
	}
	byID := map[string]string{}
	for _, r := range full {
		byID[fmt.Sprint(r[0])] = fmt.Sprint(r[col])
	}
	for i, r := range got {
		if fmt.Sprint(r[1]) != fmt.Sprint(full[i][col]) {
			t.Fatalf("%s: row %d key %v, want %v", q, i, r[1], full[i][col])
		}
		if v, ok := byID[fmt.Sprint(r[0])]; ok && v != fmt.Sprint(r[1]) {
			t.Fatalf("%s: row %d (id %v) has key %v, but that row's key is %v", q, i, r[0], r[1], v)
		}
	}
}

// TestTopSkipsBlocks: once N rows are held, blocks whose statistics cannot
// beat them are not scanned, which the rows examined show; and a where
// before the top keeps the pruning.
func TestTopSkipsBlocks(t *testing.T) {
	db := stillMemoryStore()
	t.Cleanup(func() { db.Close() })
	ds, err := db.Create("t")
	if err != nil {
		t.Fatal(err)
	}
	const parts, per = 8, 1000
	for p := range parts {
		var body strings.Builder
		for r := range per {
			// Disjoint ranges: block p holds x in [p*per, (p+1)*per).
			fmt.Fprintf(&body, `{"_time":"2024-03-01T00:00:%02dZ","x":%d}`+"\n", r%60, p*per+r)
		}
		b := store.NewRowsBuilder()
		if _, err := ingest.Decode([]byte(body.String()), ingest.Options{Format: ingest.NDJSON, Now: fixtureNow.UnixNano()}, b); err != nil {
			t.Fatal(err)
		}
		if _, err := ds.Append(b.Finish(fixtureNow.UnixNano())); err != nil {
			t.Fatal(err)
		}
		if err := ds.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	cat := &countingCatalog{Catalog: exec.StoreCatalog(db)}
	e := NewEngine(cat)
	for _, c := range []struct {
		q    string
		want string
	}{
		{"t | sort by x desc | take 3 | project x", "[[7999] [7998] [7997]]"},
		{"t | top 2 by x asc | project x", "[[0] [1]]"},
		{"t | where x % 2 == 0 | top 2 by x desc | project x", "[[7998] [7996]]"},
	} {
		for _, w := range []int{1, 2} {
			cat.reads.Store(0)
			r := mustQuery(t, e, c.q, func(r *exec.Request) { r.Workers = w; r.NoColumnCache = true })
			if got := fmt.Sprint(rows(r)); got != c.want {
				t.Fatalf("%s: %s, want %s", c.q, got, c.want)
			}
			// Each worker may start a block before the threshold exists;
			// a block read costs x, and for the where no more.
			if n := cat.reads.Load(); n > int64(w) {
				t.Errorf("%s with %d workers decoded x of %d blocks; the best block holds the answer", c.q, w, n)
			}
		}
	}
}

// countingCatalog counts the columns its parts decode.
type countingCatalog struct {
	exec.Catalog
	reads atomic.Int64
}

func (c *countingCatalog) Snapshot(name string) (*store.Snapshot, error) {
	s, err := c.Catalog.Snapshot(name)
	if err != nil {
		return nil, err
	}
	cp := *s
	cp.Parts = make([]store.Part, len(s.Parts))
	for i, p := range s.Parts {
		cp.Parts[i] = countingPart{p, &c.reads}
	}
	return &cp, nil
}

type countingPart struct {
	store.Part
	reads *atomic.Int64
}

func (p countingPart) ReadColumn(k store.ColKey) (*vector.Vector, error) {
	if k.Name != store.TimeField && k.Name != store.SysTimeField {
		p.reads.Add(1)
	}
	return p.Part.ReadColumn(k)
}
