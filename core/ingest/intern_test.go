package ingest

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/aplite/aplite/vector"
)

// copiesOf decodes body and returns, per string column, how many distinct
// values and how many distinct copies (data pointers) of them it holds.
func copiesOf(t *testing.T, body string) (distinct, copies map[string]int) {
	t.Helper()
	_, _, r, err := run(t, body, Options{Format: NDJSON})
	if err != nil {
		t.Fatal(err)
	}
	distinct, copies = map[string]int{}, map[string]int{}
	for i, k := range r.Keys {
		if k.Type != vector.String {
			continue
		}
		vals, ptrs := map[string]bool{}, map[*byte]bool{}
		for _, s := range r.Cols[i].Strs {
			vals[s] = true
			ptrs[unsafe.StringData(s)] = true
		}
		distinct[k.Name], copies[k.Name] = len(vals), len(ptrs)
	}
	return distinct, copies
}

// The store dictionary-encodes a column cheaply when repeats share one
// string, so a field with a few hundred distinct values (cities, user
// agents, even long ones) should end up with about one copy of each.
func TestRepeatedValuesShareOneString(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		agent := fmt.Sprintf("Mozilla/5.0 (X11; Linux x86_64; rv:%d.0) Gecko/20100101 Firefox/%d.0", i*7%40, i*7%40)
		fmt.Fprintf(&b, `{"city":"city-%d","agent":"%s","n":%d}`+"\n", i*31%300, agent, i)
	}
	distinct, copies := copiesOf(t, b.String())
	if distinct["city"] != 300 || distinct["agent"] != 40 {
		t.Fatalf("distinct values %v, want 300 cities and 40 agents", distinct)
	}
	// A few extra copies are allowed: a value can be evicted from a probe
	// sequence while the table is still small.
	if copies["city"] > 310 || copies["agent"] > 42 {
		t.Errorf("copies %v for distinct %v: repeated values are not shared", copies, distinct)
	}
}

// Unique values (ids) must still decode exactly, whether or not the cache
// turned itself off, and values that the sampled hash confuses (same
// length, same start, middle and end) must never be mixed up.
func TestCacheNeverMixesUpValues(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := range 5000 {
		// Differ only in bytes the hash does not sample.
		v := fmt.Sprintf("prefix--%03dxxxxxxxxxxxxxxx%03d--suffix", i%1000, (i*7)%1000)
		want = append(want, v)
		fmt.Fprintf(&b, `{"v":"%s","id":"%016x"}`+"\n", v, uint64(i)*0x9E3779B97F4A7C15)
	}
	events, _, _, err := run(t, b.String(), Options{Format: NDJSON})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d", len(events), len(want))
	}
	for i, e := range events {
		if e["v"] != want[i] || e["id"] != fmt.Sprintf("%016x", uint64(i)*0x9E3779B97F4A7C15) {
			t.Fatalf("event %d = %v, want v=%s", i, e, want[i])
		}
	}
}

// A field whose values never repeat switches the cache off, so its table
// stops costing memory and time; one with repeats keeps it.
func TestCacheTurnsOffForUniqueValues(t *testing.T) {
	var a arena
	a.reset(1 << 20)
	var ids, methods strCache
	for i := range 4 * cacheWindow {
		ids.get(fmt.Appendf(nil, "%032x", i), &a)
		methods.get([]byte([]string{"GET", "POST", "PUT"}[i%3]), &a)
	}
	if !ids.off || ids.slots != nil {
		t.Errorf("cache of unique ids is still on (%d slots)", len(ids.slots))
	}
	if methods.off {
		t.Errorf("cache of repeated methods was turned off")
	}
	if got := methods.get([]byte("GET"), &a); got != "GET" {
		t.Errorf("cached value %q, want GET", got)
	}
}

// The table is bounded however many distinct values a field has.
func TestCacheIsBounded(t *testing.T) {
	var a arena
	a.reset(1 << 20)
	var c strCache
	for i := range 100000 {
		// Every value repeats once right away, so the hit rate keeps the
		// cache on while the distinct values keep coming.
		v := fmt.Appendf(nil, "v%d", i)
		if s := c.get(v, &a); s != string(v) {
			t.Fatalf("got %q, want %q", s, v)
		}
		if s := c.get(v, &a); s != string(v) {
			t.Fatalf("got %q, want %q", s, v)
		}
	}
	if c.off || len(c.slots) > maxCacheSlots {
		t.Errorf("off=%v slots=%d, want on and at most %d", c.off, len(c.slots), maxCacheSlots)
	}
}

// The unscanned fast path must agree with the scanner on every kind of
// value: a long first value (no table yet), escapes, values that are a
// prefix of one another, and non-plain values cached from escapes.
func TestCachedValuesMatchScannedOnes(t *testing.T) {
	long := strings.Repeat("x", maxCachedLen+10)
	lines := []string{
		`{"f":"` + long + `"}`, `{"f":"GET"}`, `{"f":"GET"}`, `{"f":"GE"}`, `{"f":"GETS"}`,
		`{"f":"a\"b"}`, `{"f":"a\"b"}`, `{"f":"a"}`, `{"f":"a\u00e9"}`, `{"f":"aé"}`, `{"f":"aé"}`,
		`{"f":"tab\there"}`, `{"f":"tab\there"}`, `{"f":""}`, `{"f":""}`, `{"f":"GET"}`,
	}
	want := []string{long, "GET", "GET", "GE", "GETS", `a"b`, `a"b`, "a", "aé", "aé", "aé",
		"tab\there", "tab\there", "", "", "GET"}
	for round := range 3 { // later rounds hit the cache
		events, res, _, err := run(t, strings.Join(lines, "\n"), Options{Format: NDJSON})
		if err != nil || res.Failed != 0 {
			t.Fatal(err, res.Failures)
		}
		for i, e := range events {
			if e["f"] != want[i] {
				t.Fatalf("round %d line %d: %q, want %q", round, i+1, e["f"], want[i])
			}
		}
		lines = append(lines, lines...)
		want = append(want, want...)
	}
}
