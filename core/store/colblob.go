package store

import (
	"math"
	"math/bits"
	"slices"

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
	if !v.Const && v.Codes == nil && v.Type != vector.Dynamic {
		return denseValid(v, n)
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

// denseValid is denseOf for a plain payload with a validity bitmap: typed
// loops, and the null section copied from the bitmap's words.
func denseValid(v *vector.Vector, n int) (d dense, nulls []byte, nullCount int) {
	valid := v.Valid
	m := countBits(valid, n)
	switch m {
	case 0:
		return d, []byte{nullsAll}, n
	case n:
		nulls = []byte{nullsNone}
	default:
		nulls = appendBitmapBytes([]byte{nullsSome}, valid, n)
	}
	switch v.Type {
	case vector.Bool:
		d.bools = selectValid(v.Bools[:n], valid, m)
	case vector.Int, vector.DateTime, vector.TimeSpan:
		d.ints = selectValid(v.Ints[:n], valid, m)
	case vector.Float:
		d.floats = selectValid(v.Floats[:n], valid, m)
	case vector.String:
		d.strs = selectValid(v.Strs[:n], valid, m)
	}
	return d, nulls, n - m
}

// countBits counts the set bits among the first n of b.
func countBits(b vector.Bitmap, n int) int {
	full := n / 64
	c := b[:full].Count()
	if r := n % 64; r != 0 {
		c += bits.OnesCount64(b[full] & (1<<uint(r) - 1))
	}
	return c
}

// appendBitmapBytes appends the first n bits of b as ceil(n/8) bytes,
// LSB first (the layout of FORMAT.md's validity sections).
func appendBitmapBytes(dst []byte, b vector.Bitmap, n int) []byte {
	nb := (n + 7) / 8
	for j := 0; j < nb; j++ {
		dst = append(dst, byte(b[j/8]>>(8*uint(j%8))))
	}
	if r := n % 8; r != 0 {
		dst[len(dst)-1] &= 1<<uint(r) - 1
	}
	return dst
}

// selectValid returns the m values of vals whose bit is set in valid.
func selectValid[T any](vals []T, valid vector.Bitmap, m int) []T {
	if m == len(vals) {
		return vals
	}
	out := make([]T, 0, m)
	for i, x := range vals {
		if valid.Get(i) {
			out = append(out, x)
		}
	}
	return out
}

// encodeColumn appends the blob of column v (n rows) to dst and returns
// its stats. Each type yields one or two candidate encodings, sized from
// statistics gathered in one pass rather than by building every
// encoding; chooseBlob then picks the compression by trying it on a
// sample, so each row is encoded about once.
func encodeColumn(dst []byte, t vector.Type, v *vector.Vector, n int) ([]byte, colStats, error) {
	d, nulls, nc := denseOf(v, n)
	st := colStats{nullCount: nc}
	// Every variant starts with the blob's compression byte and the null
	// section, so the raw framing is the variant itself.
	head := append([]byte{compNone}, nulls...)
	if nc == n {
		return append(dst, head...), st, nil
	}
	var variants []variant
	switch t {
	case vector.Bool:
		variants = append(variants, variant{encodeBools(head, d.bools), true})
		st.min, st.max = boolRange(d.bools)
	case vector.Int, vector.DateTime, vector.TimeSpan:
		variants = intVariants(head, d.ints)
		lo, hi := minMaxInts(d.ints)
		st.min, st.max = lo, hi
	case vector.Float:
		variants = floatVariants(head, d.floats)
		st.min, st.max = floatRange(d.floats)
	case vector.String:
		variants = encodeStrVariants(head, d.strs, &st)
	case vector.Dynamic:
		b := append(head, 0)
		var err error
		for _, x := range d.dyns {
			if b, err = putDyn(b, x); err != nil {
				return dst, st, err
			}
		}
		variants = append(variants, variant{b, true})
	}
	blob, vi := chooseBlob(variants)
	st.enc = variants[vi].body[len(head)]
	if dst == nil {
		return blob, st, nil
	}
	return append(dst, blob...), st, nil
}

func encodeBools(head []byte, vals []bool) []byte {
	return putBitsFunc(append(slices.Clip(head), 0), len(vals), func(i int) bool { return vals[i] })
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
func encodeStrVariants(head []byte, vals []string, st *colStats) []variant {
	var variants []variant
	var dict []string
	var codes []uint64
	ok := false
	if mostlyRepeated(vals) {
		dict, codes, ok = strDictOf(vals)
	}
	if ok {
		variants = strDictVariants(head, dict, codes)
		putU64s(codes)
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
		variants = append(variants, variant{putStrHex(slices.Clip(head), vals, hex), true})
	}
	// Plain+zstd may beat a dictionary that hardly repeats.
	if hex < 0 && (!ok || len(dict)*4 > len(vals)) {
		variants = append(variants, variant{putStrPlain(slices.Clip(head), vals, true), true})
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
