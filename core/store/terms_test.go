package store

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/aplite/aplite/vector"
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
		if !f.MayHave(strconv.Itoa(i)) {
			t.Fatalf("false negative for %d", i)
		}
	}
	for _, w := range []string{"request", "served", "node", "in", "99ms"} {
		if !f.MayHave(w) {
			t.Fatalf("false negative for %q", w)
		}
	}
	fp := 0
	for i := 0; i < 10000; i++ {
		if f.MayHave(fmt.Sprintf("absent%d", i)) {
			fp++
		}
	}
	if fp > 300 { // ~1% expected
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
