package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aplite/aplite/internal/testutil"
	"github.com/aplite/aplite/vector"
)

// vecOf builds a vector of type t from boxed values (nil = null).
func vecOf(t vector.Type, vals ...any) *vector.Vector {
	v := vector.New(t, len(vals))
	for _, x := range vals {
		if t == vector.Null {
			v.AppendNull()
			continue
		}
		v.AppendValue(x)
	}
	return v
}

// checkVec compares a decoded vector with the original, row by row.
func checkVec(t *testing.T, name string, got, want *vector.Vector) {
	t.Helper()
	if got == nil || got.Len != want.Len || got.Type != want.Type {
		t.Fatalf("%s: got %+v, want len %d type %v", name, got, want.Len, want.Type)
	}
	for i := 0; i < want.Len; i++ {
		if got.IsNull(i) != want.IsNull(i) {
			t.Fatalf("%s: row %d null=%v, want %v", name, i, got.IsNull(i), want.IsNull(i))
		}
		if !want.IsNull(i) && !testutil.SameValue(got.Value(i), want.Value(i)) {
			t.Fatalf("%s: row %d = %#v, want %#v", name, i, got.Value(i), want.Value(i))
		}
	}
}

// roundTripBody decodes nulls+body framed plainly and with zstd.
func roundTripBody(t *testing.T, name string, v *vector.Vector, body []byte) {
	t.Helper()
	_, nulls, _ := denseOf(v, v.Len)
	raw := append(append([]byte{compNone}, nulls...), body...)
	got, err := decodeColumn("test", 0, raw, v.Type, v.Len)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	checkVec(t, name, got, v)
	z := zstdCompress(putUvarint([]byte{compZstd}, uint64(len(raw)-1)), raw[1:])
	got, err = decodeColumn("test", 0, z, v.Type, v.Len)
	if err != nil {
		t.Fatalf("%s (zstd): %v", name, err)
	}
	checkVec(t, name+" (zstd)", got, v)
	h := huffCompress(putUvarint([]byte{compHuff}, uint64(len(raw)-1)), raw[1:])
	got, err = decodeColumn("test", 0, h, v.Type, v.Len)
	if err != nil {
		t.Fatalf("%s (huffman): %v", name, err)
	}
	checkVec(t, name+" (huffman)", got, v)
}

func intCases() map[string][]any {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]any, 1000)
	sorted := make([]any, 1000)
	for i := range random {
		random[i] = rng.Int64()
		sorted[i] = int64(1_700_000_000_000_000_000 + i*1_000_000)
	}
	ooo := make([]any, 500)
	for i := range ooo {
		ooo[i] = int64(1e18 + (i*7919%500)*1e9) // out-of-order times
	}
	return map[string][]any{
		"single":   {int64(42)},
		"extremes": {int64(math.MinInt64), int64(math.MaxInt64), int64(0), int64(-1), int64(math.MinInt64)},
		"nulls":    {nil, int64(5), nil, nil, int64(-5), int64(5), nil},
		"const":    {int64(7), int64(7), int64(7), int64(7)},
		"gcd":      {int64(1000), int64(3000), int64(-2000), int64(9000)},
		"random":   random,
		"sorted":   sorted,
		"ooo":      ooo,
	}
}

func TestIntEncodingsRoundTrip(t *testing.T) {
	for name, vals := range intCases() {
		for _, typ := range []vector.Type{vector.Int, vector.DateTime, vector.TimeSpan} {
			v := vecOf(typ, vals...)
			d, _, _ := denseOf(v, v.Len)
			for _, enc := range []byte{intFOR, intDelta, intDict} {
				for _, aligned := range []bool{false, true} {
					p, ok := planIntsAs(d.ints, enc, aligned)
					if !ok {
						continue
					}
					roundTripBody(t, fmt.Sprintf("%s/%v/enc%d/aligned=%v", name, typ, enc, aligned), v, putIntPlan(nil, d.ints, p))
				}
			}
			roundTripAuto(t, name, v)
		}
	}
}

// roundTripAuto checks the writer's own choice through encodeColumn, and
// the index stats it reports.
func roundTripAuto(t *testing.T, name string, v *vector.Vector) {
	t.Helper()
	blob, st, err := encodeColumn(nil, v.Type, v, v.Len)
	if err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	got, err := decodeColumn("test", 0, blob, v.Type, v.Len)
	if err != nil {
		t.Fatalf("%s: decode: %v", name, err)
	}
	checkVec(t, name+" (auto)", got, v)
	if st.nullCount != nullCount(v) {
		t.Fatalf("%s: null count %d, want %d", name, st.nullCount, nullCount(v))
	}
}

func TestFloatEncodingsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]any, 1000)
	dec := make([]any, 1000)
	for i := range random {
		random[i] = rng.NormFloat64() * 1e6
		dec[i] = math.Round(rng.ExpFloat64()*1e5) / 1000
	}
	cases := map[string][]any{
		"special": {math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0.0, math.MaxFloat64, math.SmallestNonzeroFloat64},
		"nulls":   {nil, 1.5, nil, 2.25},
		"random":  random,
		"decimal": dec,
		"ints":    {1.0, 2.0, -300.0, 1e15},
	}
	for name, vals := range cases {
		v := vecOf(vector.Float, vals...)
		d, _, _ := denseOf(v, v.Len)
		roundTripBody(t, name+"/plain", v, putFloatsPlain(nil, d.floats))
		if _, ok := decimalScale(d.floats); ok {
			roundTripBody(t, name+"/decimal", v, putFloats(nil, d.floats, false))
			roundTripBody(t, name+"/decimal-aligned", v, putFloats(nil, d.floats, true))
		} else if name == "decimal" || name == "ints" {
			t.Errorf("%s: decimal encoding did not apply", name)
		}
		roundTripAuto(t, name, v)
	}
}

func TestStringEncodingsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	hexLower := make([]any, 300)
	hexUpper := make([]any, 300)
	many := make([]any, 3000)
	for i := range hexLower {
		hexLower[i] = fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64())
		hexUpper[i] = fmt.Sprintf("%08X", rng.Uint32())
	}
	for i := range many {
		many[i] = fmt.Sprintf("/path/%d", rng.IntN(2000))
	}
	cases := map[string][]any{
		"empty":    {"", "", ""},
		"unicode":  {"héllo", "日本語", "", "emoji 🎉", "\x00bin\xff"},
		"nulls":    {nil, "a", nil, "", "b", nil},
		"lowcard":  {"GET", "POST", "GET", "GET", "PUT", "GET", "POST", "GET"},
		"hexLower": hexLower,
		"hexUpper": hexUpper,
		"hexMixed": {"ab", "CD", "01"},
		"many":     many,
	}
	for name, vals := range cases {
		v := vecOf(vector.String, vals...)
		d, _, _ := denseOf(v, v.Len)
		roundTripBody(t, name+"/plain", v, putStrPlain(nil, d.strs, false))
		roundTripBody(t, name+"/plain-aligned", v, putStrPlain(nil, d.strs, true))
		if dict, codes, ok := strDictOf(d.strs); ok {
			roundTripBody(t, name+"/dict", v, putStrDict(nil, dict, codes, false))
			roundTripBody(t, name+"/dict-aligned", v, putStrDict(nil, dict, codes, true))
		}
		if c := hexCase(d.strs); c >= 0 {
			roundTripBody(t, name+"/hex", v, putStrHex(nil, d.strs, c))
		} else if name == "hexLower" || name == "hexUpper" {
			t.Errorf("%s: hex encoding did not apply", name)
		}
		roundTripAuto(t, name, v)
	}
	if hexCase([]string{"ab", "CD"}) >= 0 {
		t.Error("mixed-case hex must not use the hex encoding (case would be lost)")
	}
}

func TestBoolDynamicNullRoundTrip(t *testing.T) {
	when := time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC)
	cases := []struct {
		name string
		t    vector.Type
		vals []any
	}{
		{"bools", vector.Bool, []any{true, false, nil, true, true, false, false, true, true, nil}},
		{"dynamic", vector.Dynamic, []any{
			[]any{int64(1), "two", 3.5, nil, true, []any{}, map[string]any{}},
			map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": math.NaN()}}}},
			nil, "plain string", int64(math.MinInt64), when, time.Duration(-5),
		}},
		{"allNullInt", vector.Int, []any{nil, nil, nil}},
		{"allNullString", vector.String, []any{nil, nil}},
		{"allNullDynamic", vector.Dynamic, []any{nil}},
		{"nullType", vector.Null, []any{nil, nil, nil, nil}},
	}
	for _, c := range cases {
		v := vecOf(c.t, c.vals...)
		roundTripAuto(t, c.name, v)
	}
}

// TestBlockRoundTripMixed writes a block from a batch with every type,
// type changes and out-of-order times, and reads it back sorted by _time.
func TestBlockRoundTripMixed(t *testing.T) {
	r := mixedRows(1000, 1e18)
	cs, err := mergeParts([]Part{NewRowsPart("m", r)}, math.MinInt64)
	if err != nil {
		t.Fatal(err)
	}
	data, err := encodeBlock(cs, blockMeta{walSeqMax: 9, replaced: []uint64{3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := newBlockPart(1, "mem", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := eventsOf(t, p)
	for i := 1; i < len(got); i++ {
		if got[i].time < got[i-1].time {
			t.Fatalf("block not sorted by _time at row %d", i)
		}
	}
	sameEvents(t, got, eventsOfRows(r))
	if p.idx.walSeqMax != 9 || len(p.idx.replaced) != 2 {
		t.Fatalf("meta = %+v", p.idx.blockMeta)
	}
	lo, hi := p.TimeRange()
	if lo != got[0].time || hi != got[len(got)-1].time {
		t.Fatalf("time range %d..%d, rows %d..%d", lo, hi, got[0].time, got[len(got)-1].time)
	}
	for _, m := range p.Columns() {
		if m.Key.Name == "status" && m.Key.Type == vector.String && (m.Dict == nil || m.Min != "OK") {
			t.Fatalf("status string column meta = %+v", m)
		}
	}
}

// TestHuffmanChunks round-trips a stream spanning several chunks of every
// mode: skewed small-alphabet bytes, a run, random bytes.
func TestHuffmanChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	var src []byte
	for i := 0; i < 3*huffChunk+100; i++ {
		src = append(src, byte(rng.ExpFloat64()*4))
	}
	src = append(src, make([]byte, huffChunk)...) // a run
	for i := 0; i < huffChunk; i++ {
		src = append(src, byte(rng.Uint32()))
	}
	enc := huffCompress(nil, src)
	if len(enc) >= len(src) {
		t.Fatalf("no compression: %d >= %d", len(enc), len(src))
	}
	r := newReader("h", 0, enc)
	got := r.huffDecompress(len(src))
	if r.err != nil || string(got) != string(src) || r.remaining() != 0 {
		t.Fatalf("round trip failed: err %v, %d bytes back of %d", r.err, len(got), len(src))
	}
}
