package core

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aplite/aplite/core/exec"
)

// substrOps are the substring operators that prune by the whole terms of
// their needle.
var substrOps = []string{"contains", "contains_cs", "startswith", "startswith_cs", "endswith", "endswith_cs",
	"hasprefix", "hasprefix_cs", "hassuffix", "hassuffix_cs"}

// substrValue is a log-like line of words joined by separators, so its
// pieces are runs of several terms: eqValue's, with their irregular
// case folding, and plain ASCII words.
func substrValue(rng *rand.Rand) string {
	var sb strings.Builder
	for i := range 2 + rng.IntN(4) {
		if i > 0 {
			sb.WriteString([]string{" ", "/", "-", "=", ".", "_", "é", ": "}[rng.IntN(8)])
		}
		if rng.IntN(2) == 0 {
			sb.WriteString(eqValue(rng))
			continue
		}
		// An ASCII word, mostly rare: the needles that prune are ASCII.
		for range 3 + rng.IntN(4) {
			sb.WriteByte("abcdefghijklmnopqrstuvwxyzSKEQ0123"[rng.IntN(34)])
		}
	}
	return sb.String()
}

// substrNeedle cuts a needle from v at rune boundaries: a piece of it, its
// start, its end, or the same in another case.
func substrNeedle(rng *rand.Rand, v string) string {
	r := []rune(v)
	lo, hi := rng.IntN(len(r)+1), rng.IntN(len(r)+1)
	switch rng.IntN(4) {
	case 0:
		lo = 0
	case 1:
		hi = len(r)
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	s := string(r[lo:hi])
	switch rng.IntN(5) {
	case 0:
		return strings.ToUpper(s)
	case 1:
		return strings.ToLower(s)
	}
	return s
}

// The substring operators prune by the terms their needle holds whole
// and never drop a matching row: for random log-like values (irregular
// case folding, non-ASCII letters and separators, empty values, nulls)
// and needles cut from them, every answer equals the full scan's, and
// the filters do skip rows in some.
func TestTermFiltersSubstringNeverDropRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 7))
	pool := make([]string, 3000)
	for i := range pool {
		pool[i] = substrValue(rng)
		if i%97 == 0 {
			pool[i] = []string{"", "-", " ", "\x00null"}[i%4]
		}
	}
	values := make([]string, 5*exec.TermGranuleRows)
	for i := range values {
		values[i] = pool[(i/16+rng.IntN(8))%len(pool)]
	}
	pruned, full := eqPruneDBs(t, values)
	noCache := func(r *exec.Request) { r.DisableCache = true }
	prunedQueries := 0
	for i := range 160 {
		v := pool[rng.IntN(len(pool))]
		if v == "\x00null" {
			v = ""
		}
		apl := fmt.Sprintf("['logs'] | where v %s %q | count", substrOps[i%len(substrOps)], substrNeedle(rng, v))
		got, want := mustQuery(t, pruned, apl, noCache), mustQuery(t, full, apl, noCache)
		if got.Value(0, 0) != want.Value(0, 0) {
			t.Fatalf("%s: %v with term filters, %v from the full scan", apl, got.Value(0, 0), want.Value(0, 0))
		}
		if want.Stats.RowsExamined != int64(len(values)) {
			t.Fatalf("%s: the reference store examined %d of %d rows: it is not a full scan", apl, want.Stats.RowsExamined, len(values))
		}
		if got.Stats.RowsExamined < want.Stats.RowsExamined {
			prunedQueries++
		}
	}
	// Most needles cut from these values end inside a term or hold only
	// terms every granule has; about a fifth of them hold a rarer whole term.
	if prunedQueries < 160/8 {
		t.Fatalf("the filters narrowed %d of 160 queries: the substring operators did not prune", prunedQueries)
	}
	t.Logf("the filters narrowed %d of 160 queries", prunedQueries)
}

// A needle's whole terms prune; its cut ends do not, unless the
// operator anchors them to the value's start or end.
func TestTermFiltersSubstringPrunes(t *testing.T) {
	values := make([]string, 6*exec.TermGranuleRows)
	for i := range values {
		values[i] = fmt.Sprintf("GET /api/v2/users/%d status=200 took %dms", 10000+i%5000, i%300)
	}
	values[4*exec.TermGranuleRows+17] = "GET /api/v2/orders/7 status=500 DeadLock detected"
	pruned, _ := eqPruneDBs(t, values)
	g := int64(exec.TermGranuleRows)
	cases := []struct {
		pred      string
		count     int64
		atMostRow int64
	}{
		{`v contains "/orders/"`, 1, g},
		{`v contains_cs "status=500 DeadL"`, 1, g},
		{`v contains_cs "status=500 deadL"`, 0, g},
		{`v contains "STATUS=500 DEADL"`, 1, g},
		{`v startswith "GET /api/v2/orders/"`, 1, g},
		{`v endswith_cs "Lock detected"`, 1, g},
		{`v hasprefix "orders/7"`, 1, g},
		{`v hassuffix_cs "Lock detected"`, 1, g},
		{`v contains "rders/"`, 1, int64(len(values))}, // no whole term
		{`v !contains "/orders/"`, int64(len(values)) - 1, int64(len(values))},
	}
	for _, c := range cases {
		apl := "['logs'] | where " + c.pred + " | count"
		r := mustQuery(t, pruned, apl, func(r *exec.Request) { r.DisableCache = true })
		if got := r.Value(0, 0); got != c.count {
			t.Errorf("%s = %v, want %d", apl, got, c.count)
		}
		if got := r.Stats.RowsExamined; got > c.atMostRow {
			t.Errorf("%s examined %d rows, want at most %d", apl, got, c.atMostRow)
		}
	}
}
