package store

import (
	"bytes"
	"math"

	"github.com/aplite/aplite/vector"
)

// Blob compression flags and null layouts (FORMAT.md, "Column blob").
const (
	compNone = 0
	compZstd = 1
	compHuff = 2

	nullsNone = 0
	nullsSome = 1
	nullsAll  = 2
)

// zstdMinLen is the smallest body worth trying to compress.
const zstdMinLen = 256

// colStats is what the index records about a column.
type colStats struct {
	enc       byte
	nullCount int
	min, max  any
	dict      []string
}

// dense holds the non-null values of a column in row order.
type dense struct {
	ints   []int64
	floats []float64
	bools  []bool
	strs   []string
	dyns   []any
}

// denseOf extracts the non-null values of v (n rows) and its null section.
func denseOf(v *vector.Vector, n int) (d dense, nulls []byte, nullCount int) {
	if v == nil || v.Type == vector.Null {
		return d, []byte{nullsAll}, n
	}
	if v.Valid == nil && !v.Const && v.Codes == nil { // no nulls: share the payload
		switch v.Type {
		case vector.Bool:
			d.bools = v.Bools[:n]
		case vector.Int, vector.DateTime, vector.TimeSpan:
			d.ints = v.Ints[:n]
		case vector.Float:
			d.floats = v.Floats[:n]
		case vector.String:
			d.strs = v.Strs[:n]
		case vector.Dynamic:
			d.dyns = v.Dyns[:n]
		}
		return d, []byte{nullsNone}, 0
	}
	for i := 0; i < n; i++ {
		if v.IsNull(i) {
			nullCount++
			continue
		}
		switch v.Type {
		case vector.Bool:
			d.bools = append(d.bools, v.Bool(i))
		case vector.Int, vector.DateTime, vector.TimeSpan:
			d.ints = append(d.ints, v.Int(i))
		case vector.Float:
			d.floats = append(d.floats, v.Float(i))
		case vector.String:
			d.strs = append(d.strs, v.Str(i))
		case vector.Dynamic:
			d.dyns = append(d.dyns, v.Dyn(i))
		}
	}
	switch nullCount {
	case 0:
		nulls = []byte{nullsNone}
	case n:
		nulls = []byte{nullsAll}
	default:
		nulls = putBitsFunc([]byte{nullsSome}, n, func(i int) bool { return !v.IsNull(i) })
	}
	return d, nulls, nullCount
}

// encodeColumn appends the blob of column v (n rows) to dst and returns
// its stats. It builds each encoding that fits, with and without
// byte-aligned packing, and keeps the smallest after optional zstd.
func encodeColumn(dst []byte, t vector.Type, v *vector.Vector, n int) ([]byte, colStats, error) {
	d, nulls, nc := denseOf(v, n)
	st := colStats{nullCount: nc}
	if nc == n {
		return append(append(dst, compNone), nulls...), st, nil
	}
	var variants []variant
	switch t {
	case vector.Bool:
		variants = append(variants, variant{encodeBools(d.bools), true})
		st.min, st.max = boolRange(d.bools)
	case vector.Int, vector.DateTime, vector.TimeSpan:
		variants = packedVariants(func(aligned bool) []byte { return putInts(nil, d.ints, aligned) })
		lo, hi := minMaxInts(d.ints)
		st.min, st.max = lo, hi
	case vector.Float:
		variants = packedVariants(func(aligned bool) []byte { return putFloats(nil, d.floats, aligned) })
		st.min, st.max = floatRange(d.floats)
	case vector.String:
		variants = encodeStrVariants(d.strs, &st)
	case vector.Dynamic:
		b := []byte{0}
		var err error
		for _, x := range d.dyns {
			if b, err = putDyn(b, x); err != nil {
				return dst, st, err
			}
		}
		variants = append(variants, variant{b, true})
	}
	best, vi := chooseBlob(nulls, variants)
	st.enc = variants[vi].body[0]
	return append(dst, best...), st, nil
}

// variant is one candidate encoding of a column's values; zstd says
// whether compressing it may pay (bit-packed data at odd widths rarely
// compresses, so only its byte-aligned twin is tried with zstd).
type variant struct {
	body []byte
	zstd bool
}

// packedVariants returns the bit-packed encoding as is, plus its
// byte-aligned twin for zstd when the two differ.
func packedVariants(enc func(aligned bool) []byte) []variant {
	tight, aligned := enc(false), enc(true)
	if bytes.Equal(tight, aligned) {
		return []variant{{tight, true}}
	}
	return []variant{{tight, false}, {aligned, true}}
}

// chooseBlob frames each variant (null section + values), optionally
// compressed, and returns the smallest framing and which variant it holds.
func chooseBlob(nulls []byte, variants []variant) ([]byte, int) {
	var best []byte
	bi := 0
	for i, v := range variants {
		raw := append(append(make([]byte, 0, 1+len(nulls)+len(v.body)), compNone), nulls...)
		raw = append(raw, v.body...)
		cand := raw
		if v.zstd && len(raw) >= zstdMinLen {
			if compressible(raw[1:]) {
				z := putUvarint([]byte{compZstd}, uint64(len(raw)-1))
				if z = zstdCompress(z, raw[1:]); len(z) < len(raw)*9/10 {
					cand = z
				}
			}
			// Huffman alone is cheap and wins on small-alphabet streams
			// that zstd declines to compress.
			h := putUvarint([]byte{compHuff}, uint64(len(raw)-1))
			if h = huffCompress(h, raw[1:]); len(h) < len(cand) && len(h) < len(raw)*9/10 {
				cand = h
			}
		}
		if best == nil || len(cand) < len(best) {
			best, bi = cand, i
		}
	}
	return best, bi
}

// zstdSample is the probe size compressible looks at.
const zstdSample = 16 << 10

// compressible compresses a sample of a large body and reports whether it
// shrank enough for compressing the whole body to be worth the time
// (random ids and mantissas do not).
func compressible(b []byte) bool {
	if len(b) <= 4*zstdSample {
		return true
	}
	mid := len(b)/2 - zstdSample/2
	z := zstdCompress(nil, b[mid:mid+zstdSample])
	return len(z) < zstdSample*9/10
}

func encodeBools(vals []bool) []byte {
	return putBitsFunc([]byte{0}, len(vals), func(i int) bool { return vals[i] })
}

func boolRange(vals []bool) (any, any) {
	lo, hi := true, false
	for _, b := range vals {
		lo, hi = lo && b, hi || b
	}
	return lo, hi
}

func floatRange(vals []float64) (any, any) {
	lo, hi := math.Inf(1), math.Inf(-1)
	seen := false
	for _, x := range vals {
		if math.IsNaN(x) {
			continue
		}
		seen = true
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	if !seen {
		return nil, nil
	}
	return lo, hi
}

// maxStatLen bounds string min/max kept in the index.
const maxStatLen = 256

// Index dictionary limits (FORMAT.md).
const (
	maxIndexDict      = 256
	maxIndexDictBytes = 16 << 10
)

// encodeStrVariants builds the string encodings worth trying: a
// dictionary unless a sample shows mostly distinct values, hex for ids, and
// plain when nothing better applies or the dictionary is large.
func encodeStrVariants(vals []string, st *colStats) []variant {
	var variants []variant
	var dict []string
	var codes []uint64
	ok := false
	if mostlyRepeated(vals) {
		dict, codes, ok = strDictOf(vals)
	}
	if ok {
		variants = packedVariants(func(aligned bool) []byte { return putStrDict(nil, dict, codes, aligned) })
		st.min, st.max = dict[0], dict[len(dict)-1]
		if len(dict) <= maxIndexDict && dictBytes(dict) <= maxIndexDictBytes {
			st.dict = dict
		}
	} else {
		lo, hi := vals[0], vals[0]
		for _, s := range vals[1:] {
			lo, hi = min(lo, s), max(hi, s)
		}
		st.min, st.max = lo, hi
	}
	if len(st.min.(string)) > maxStatLen || len(st.max.(string)) > maxStatLen {
		st.min, st.max = nil, nil
	}
	hex := hexCase(vals)
	if hex >= 0 {
		variants = append(variants, variant{putStrHex(nil, vals, hex), true})
	}
	if hex < 0 && (!ok || len(dict)*16 > len(vals)) { // plain+zstd may beat a large dictionary
		variants = append(variants, variant{putStrPlain(nil, vals, true), true})
	}
	return variants
}

// mostlyRepeated samples the first values: a dictionary is only tried when
// fewer than half of them are distinct.
func mostlyRepeated(vals []string) bool {
	n := min(len(vals), 2048)
	seen := make(map[string]struct{}, 64)
	for _, s := range vals[:n] {
		seen[s] = struct{}{}
		if len(seen) > n/2+1 {
			return false
		}
	}
	return true
}

func dictBytes(dict []string) int {
	n := 0
	for _, s := range dict {
		n += len(s)
	}
	return n
}
