package core

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/core/exec"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/internal/testutil"
)

// eqPruneDBs holds the same events twice: in a store whose sealed blocks
// have term filters and in one whose blocks have none (every granule is
// read), so an answer the filters narrowed can be checked against the
// full scan's. The stores' clock stands still: an idle store would
// compact, and compaction writes term filters even into the store that
// was opened without them, so it would stop being a full scan.
func eqPruneDBs(t *testing.T, values []string) (pruned, full *Engine) {
	clock := testutil.NewClock(time.Unix(1_700_000_000, 0))
	open := func(noFilters bool) *Engine {
		db := store.OpenMemory(store.Options{NoSync: true, NoSealTermFilters: noFilters, Now: clock.Now})
		t.Cleanup(func() { db.Close() })
		ds, err := db.Create("logs")
		if err != nil {
			t.Fatal(err)
		}
		for lo := 0; lo < len(values); lo += 3 * exec.TermGranuleRows {
			b := store.NewRowsBuilder()
			for i := lo; i < min(lo+3*exec.TermGranuleRows, len(values)); i++ {
				b.Begin()
				b.SetTime(int64(i) * 1e9)
				if values[i] != "\x00null" {
					b.SetString("v", values[i])
				}
				b.End(0)
			}
			if _, err := ds.Append(b.Finish(0)); err != nil {
				t.Fatal(err)
			}
			if err := ds.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		return NewEngine(exec.StoreCatalog(db))
	}
	return open(false), open(true)
}

// eqAtoms make values: ASCII words in both cases, digits, punctuation,
// and runes whose case folding is irregular: ſ (folds with s, lowers to
// itself), the Kelvin sign (folds with k, lowers to k), σ/ς/Σ, İ (no
// simple folding, lowers to i), ß, µ/μ/Μ and a digit of another script.
var eqAtoms = []string{"err", "Err", "ERR", "id", "s", "S", "ſ", "k", "K", "\u212a", "σ", "ς", "Σ",
	"İ", "i", "ß", "µ", "μ", "Μ", "٣", "7", "42", "-", "_", ".", " ", "/", "é", "É", "日本", "x"}

// eqValue is a random value of one to four atoms, most with a random
// word of ASCII letters in either case (which the filters can tell apart).
func eqValue(rng *rand.Rand) string {
	var sb strings.Builder
	for range 1 + rng.IntN(4) {
		sb.WriteString(eqAtoms[rng.IntN(len(eqAtoms))])
	}
	if rng.IntN(10) < 7 {
		sb.WriteString(eqAtoms[rng.IntN(len(eqAtoms))])
		for range 3 + rng.IntN(3) {
			sb.WriteByte("abcdefghijklmnopqrstuvwxyzSKEQ"[rng.IntN(30)])
		}
	}
	return sb.String()
}

// eqNeedle derives a needle from a stored value: itself, another case,
// a folding twin of its s, k or σ, or something unrelated.
func eqNeedle(rng *rand.Rand, v string) string {
	switch rng.IntN(9) {
	case 0:
		return strings.ToUpper(v)
	case 1:
		return strings.ToLower(v)
	case 2:
		return strings.NewReplacer("s", "ſ", "k", "\u212a", "σ", "ς").Replace(v)
	case 3:
		return strings.NewReplacer("ſ", "S", "\u212a", "k", "ς", "Σ", "µ", "μ").Replace(v)
	case 4:
		return eqValue(rng)
	case 5:
		return []string{"", "-", " ", "._/"}[rng.IntN(4)]
	}
	return v
}

// Equality and in-lists prune by the term filters and never drop a
// matching row: for random values (non-ASCII, irregular case folding,
// values without terms, empty strings, nulls) every ==, =~, in, in~,
// has and has_cs answer equals the full scan's, and the filters do
// skip rows.
func TestTermFiltersEqualityNeverDropRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	pool := make([]string, 4000)
	for i := range pool {
		pool[i] = eqValue(rng)
		if i%97 == 0 {
			pool[i] = []string{"", "-", " ", "\x00null"}[i%4]
		}
	}
	values := make([]string, 7*exec.TermGranuleRows)
	for i := range values {
		// Neighbouring rows share values, as a burst of one request's
		// lines would, so a needle sits in a few granules only.
		values[i] = pool[(i/16+rng.IntN(8))%len(pool)]
	}
	pruned, full := eqPruneDBs(t, values)
	needle := func() string {
		v := pool[rng.IntN(len(pool))]
		if v == "\x00null" {
			v = ""
		}
		return eqNeedle(rng, v)
	}
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	var examined, total int64
	for i := range 400 {
		var apl string
		switch i % 6 {
		case 0:
			apl = "v == " + q(needle())
		case 1:
			apl = "v =~ " + q(needle())
		case 2:
			apl = fmt.Sprintf("v in (%s, %s, %s)", q(needle()), q(needle()), q(needle()))
		case 3:
			apl = fmt.Sprintf("v in~ (%s, %s)", q(needle()), q(needle()))
		case 4:
			apl = "v has " + q(needle())
		case 5:
			apl = fmt.Sprintf("v has_cs %s or v == %s", q(needle()), q(needle()))
		}
		apl = "['logs'] | where " + apl + " | count"
		noCache := func(r *exec.Request) { r.DisableCache = true }
		got, want := mustQuery(t, pruned, apl, noCache), mustQuery(t, full, apl, noCache)
		if got.Value(0, 0) != want.Value(0, 0) {
			t.Fatalf("%s: %v with term filters, %v from the full scan", apl, got.Value(0, 0), want.Value(0, 0))
		}
		if want.Stats.RowsExamined != int64(len(values)) {
			t.Fatalf("%s: the reference store examined %d of %d rows: it is not a full scan", apl, want.Stats.RowsExamined, len(values))
		}
		examined += got.Stats.RowsExamined
		total += want.Stats.RowsExamined
	}
	if examined*2 > total {
		t.Fatalf("the filters left %d of %d rows to examine: equality did not prune", examined, total)
	}
}

// An id lookup by equality reads the granules that may hold the id, in
// fresh (sealed, not compacted) blocks; so do =~, in and in~.
func TestTermFiltersEqualityPrunes(t *testing.T) {
	values := make([]string, 6*exec.TermGranuleRows)
	for i := range values {
		values[i] = fmt.Sprintf("%016x%016x", uint64(i)*0x9e3779b97f4a7c15, uint64(i)*31)
	}
	pruned, _ := eqPruneDBs(t, values)
	id := values[3*exec.TermGranuleRows+5]
	g := int64(exec.TermGranuleRows)
	cases := []struct {
		apl       string
		count     int64
		atMostRow int64
	}{
		{"v == " + fmt.Sprintf("%q", id), 1, 2 * g},
		{"v =~ " + fmt.Sprintf("%q", strings.ToUpper(id)), 1, 2 * g},
		{fmt.Sprintf("v in (%q, 'nothere')", id), 1, 2 * g},
		{fmt.Sprintf("v in~ (%q)", strings.ToUpper(id)), 1, 2 * g},
		{"v == 'nothere'", 0, g},
		{"v != " + fmt.Sprintf("%q", id), int64(len(values)) - 1, int64(len(values))},
	}
	for _, c := range cases {
		apl := "['logs'] | where " + c.apl + " | count"
		r := mustQuery(t, pruned, apl, func(r *exec.Request) { r.DisableCache = true })
		if got := r.Value(0, 0); got != c.count {
			t.Errorf("%s = %v, want %d", apl, got, c.count)
		}
		if got := r.Stats.RowsExamined; got > c.atMostRow {
			t.Errorf("%s examined %d rows, want at most %d", apl, got, c.atMostRow)
		}
	}
}
