package store

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/aplite/aplite/bench/gen"
	"github.com/aplite/aplite/vector"
	"github.com/cespare/xxhash/v2"
)

func TestTerms(t *testing.T) {
	got := Terms("GET /api/v1/Users?id=42 — Ünïcode_x.y 日本")
	want := []string{"get", "api", "v1", "users", "id", "42", "ünïcode", "x", "y", "日本"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Terms = %q, want %q", got, want)
	}
}

// A compacted block's string columns carry term filters with no false
// negatives and few false positives; the filter survives the index
// round trip.
func TestTermFilterInBlock(t *testing.T) {
	const n = 5000
	v := vector.New(vector.String, n)
	for i := 0; i < n; i++ {
		v.AppendStr(fmt.Sprintf("request %d served by node-%d in %dms", i, i%7, i%100))
	}
	tv := vector.New(vector.DateTime, n)
	for i := 0; i < n; i++ {
		tv.AppendInt(int64(i))
	}
	keys := []ColKey{{Name: TimeField, Type: vector.DateTime}, {Name: "msg", Type: vector.String}}
	cols := []*vector.Vector{tv, v}
	cs := &colSet{n: n, keys: keys, col: func(i int) (*vector.Vector, error) { return cols[i], nil }}
	data, err := encodeBlock(cs, blockMeta{terms: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := newBlockPart(1, "test", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var f *TermFilter
	for _, m := range p.Columns() {
		if m.Key.Name == "msg" {
			f = m.Terms
		}
	}
	if f == nil {
		t.Fatal("no term filter on the string column")
	}
	for i := 0; i < n; i++ {
		if !mayHave(f, strconv.Itoa(i)) {
			t.Fatalf("false negative for %d", i)
		}
	}
	for _, w := range []string{"request", "served", "node", "in", "99ms"} {
		if !mayHave(f, w) {
			t.Fatalf("false negative for %q", w)
		}
	}
	fp := 0
	for i := 0; i < 10000; i++ {
		if mayHave(f, fmt.Sprintf("absent%d", i)) {
			fp++
		}
	}
	// Each message has a term of its own (its number), so the granule is
	// sized as an identifier column: about 7% false positives.
	if fp > 1000 {
		t.Fatalf("%d of 10000 absent terms pass the filter", fp)
	}
}

// Blocks written before term filters (format version 1) still open.
func TestReadsBlockVersion1(t *testing.T) {
	raw, err := os.ReadFile("testdata/fuzz/FuzzBlock/seed-v1-compat")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.SplitN(string(raw), "\n", 3)[1]
	q := strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")")
	s, err := strconv.Unquote(q)
	if err != nil {
		t.Fatal(err)
	}
	if s[6] != 1 {
		t.Fatalf("fixture is version %d, want 1", s[6])
	}
	p, err := newBlockPart(1, "v1", []byte(s), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range p.Columns() {
		if m.Terms != nil {
			t.Fatal("a version 1 block has term filters")
		}
		if _, err := p.ReadColumn(m.Key); err != nil {
			t.Fatal(err)
		}
	}
}

// Since version 3 a string column has one filter per granule of rows: a
// word in one row leaves every other granule out, and a column of unique
// ids, too many terms for one block filter, still gets filters.
func TestTermGranules(t *testing.T) {
	const n = 5*termGranule + 100
	v := vector.New(vector.String, n)
	for i := 0; i < n; i++ {
		msg := fmt.Sprintf("request %d served", i%1000)
		if i%4 == 0 { // a request id now and then, as log lines have
			msg += fmt.Sprintf(" req_id=%016x", uint64(i)*0x9e3779b97f4a7c15)
		}
		if i == 3*termGranule+17 {
			msg += " deadlock"
		}
		v.AppendStr(msg)
	}
	field := buildTermFilter(v, n, nil)
	f, err := parseTermFilter(field, blockVersion, n)
	if err != nil {
		t.Fatal(err)
	}
	rows, may := f.Granules([]string{"deadlock"})
	if rows != termGranule || len(may) != 6 {
		t.Fatalf("%d granules of %d rows, want 6 of %d", len(may), rows, termGranule)
	}
	// The granule that holds it must say so; of the five that do not,
	// Bloom filters (~2% false positives) may let one through, not more.
	if !may[3] {
		t.Error("granule 3 holds deadlock but its filter says it cannot")
	}
	if fp := countTrue(may) - 1; fp > 1 {
		t.Errorf("%d of 5 granules without deadlock may hold it: %v", fp, may)
	}
	if _, may := f.Granules([]string{"request", "served"}); slices.Contains(may, false) {
		t.Errorf("a word of every row is ruled out somewhere: %v", may)
	}
	if _, may := f.Granules([]string{"deadlock", "absentword"}); slices.Contains(may, true) {
		t.Errorf("two words never together are allowed somewhere: %v", may)
	}
}

// A version 2 terms field (one filter over the block) reads as a single
// granule; a version 3 field that does not add up is corruption.
func TestParseTermFilter(t *testing.T) {
	bits := make([]byte, 64)
	bloomSet(bits, xxhashString("alpha"))
	f, err := parseTermFilter(bits, 2, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if rows, may := f.Granules([]string{"alpha"}); rows != 1000 || len(may) != 1 || !may[0] {
		t.Errorf("version 2: %d rows, %v", rows, may)
	}
	v := vector.New(vector.String, 3)
	for _, s := range []string{"a b", "c", "d"} {
		v.AppendStr(s)
	}
	good := buildTermFilter(v, 3, nil)
	head := func(granuleRows, granules uint64) []byte {
		return binary.AppendUvarint(binary.AppendUvarint(nil, granuleRows), granules)
	}
	rest := good[len(head(termGranule, 1)):]
	for name, bad := range map[string][]byte{
		"truncated":         good[:len(good)-1],
		"trailing bytes":    append(append([]byte(nil), good...), 0),
		"granule size 0":    append(head(0, 1), rest...),
		"too many granules": append(head(termGranule, 2), rest...),
		"filter too long":   append(head(termGranule, 1), binary.AppendUvarint(nil, 1<<30)...),
	} {
		if _, err := parseTermFilter(bad, 3, 3); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func xxhashString(s string) uint64 { return xxhash.Sum64String(s) }

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// The ASCII fast path of forTerms splits and lower-cases exactly as the
// rune-by-rune definition does, on any text.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"GET /api/v1/Users?id=42 — Ünïcode_x.y 日本", "", "ABC\xffdef", "İstanbul KELVIN\u212a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []string
		var buf []byte
		for _, r := range s {
			r = unicode.ToLower(r)
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				buf = utf8.AppendRune(buf, r)
				continue
			}
			if len(buf) > 0 {
				want = append(want, string(buf))
				buf = buf[:0]
			}
		}
		if len(buf) > 0 {
			want = append(want, string(buf))
		}
		if got := Terms(s); !slices.Equal(got, want) {
			t.Fatalf("Terms(%q) = %q, want %q", s, got, want)
		}
		checkBuilderTerms(t, s, want)
	})
}

// checkBuilderTerms checks that the filter builder's own splitter adds
// the hashes of exactly want, the terms of s, and counts them all.
func checkBuilderTerms(t *testing.T, s string, want []string) {
	t.Helper()
	var b termBuilder
	b.hashes.reset()
	b.add(s)
	var got []uint64
	b.hashes.each(func(h uint64) { got = append(got, h) })
	var hs []uint64
	for _, w := range want {
		hs = append(hs, xxhash.Sum64String(w))
	}
	slices.Sort(got)
	slices.Sort(hs)
	if !slices.Equal(got, slices.Compact(hs)) || b.st.terms != len(want) {
		t.Fatalf("builder on %q: %d hashes, %d terms; want the %d of %q", s, len(got), b.st.terms, len(want), want)
	}
}

// The builder's splitter agrees with Terms on values that mix ASCII
// case, digits, punctuation and non-ASCII runes (letters, runes whose
// lower case is ASCII, invalid bytes) at every position.
func TestBuilderTermsMatchTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	atoms := []string{"a", "Z", "0", "9", " ", "-", "_", ".", "É", "é", "ß", "\u0130", "\u212a", "日", "\xff", "\u00a0", "٣", "K", "k"}
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(atoms[rng.IntN(len(atoms))])
		}
		s := sb.String()
		checkBuilderTerms(t, s, Terms(s))
	}
}

func BenchmarkTerms(b *testing.B) {
	msg := "GET /api/v1/users/12345 status=200 served request in 12ms cache miss req_id=9f86d081884c7d65"
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		forTerms(msg, nil, func(t []byte) { n += len(t) })
	}
}

// mayHave reports whether some granule of f may hold term.
func mayHave(f *TermFilter, term string) bool {
	_, may := f.Granules([]string{term})
	return slices.Contains(may, true)
}

// BenchmarkTermFilter times building the term filters of a sealed
// block's string columns from the realistic generator (65,536 rows, the
// seal's size): the ingest cost of making fresh blocks searchable.
func BenchmarkTermFilter(b *testing.B) {
	const n = 64 << 10
	g := gen.NewWith(7, gen.Options{Shape: gen.Real, EventsPerDay: 1_000_000})
	fields := []string{"message", "id", "trace_id", "uri", "user_agent", "client_ip", "method", "server_datacenter"}
	cols := make([]*vector.Vector, len(fields))
	for i := range cols {
		cols[i] = vector.New(vector.String, n)
	}
	for range n {
		e := g.Event()
		for i, f := range fields {
			if s, ok := e[f].(string); ok {
				cols[i].AppendStr(s)
			} else {
				cols[i].AppendNull()
			}
		}
	}
	for i, f := range fields {
		b.Run(f, func(b *testing.B) {
			for b.Loop() {
				buildTermFilter(cols[i], n, nil)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
		})
	}
}
