package store

import (
	"github.com/aplite/aplite/vector"
)

// decodeColumn decodes a column blob of n rows of type t. base is the
// blob's offset in file, for error reports.
func decodeColumn(file string, base int64, blob []byte, t vector.Type, n int) (*vector.Vector, error) {
	return decodeColumnInto(file, base, blob, t, n, nil)
}

// decodeColumnInto is decodeColumn that decodes plain strings without
// nulls into strs (n long) when it is given: the pages of a column read
// whole land in one slice instead of being copied into it.
func decodeColumnInto(file string, base int64, blob []byte, t vector.Type, n int, strs []string) (*vector.Vector, error) {
	r := newReader(file, base, blob)
	body := r
	switch r.u8() {
	case compNone:
	case compZstd:
		rawLen := r.count(0, "raw length")
		if r.err != nil {
			return nil, r.err
		}
		raw, err := zstdDecompress(blob[r.pos:], rawLen)
		if err != nil || len(raw) != rawLen {
			r.fail("zstd body does not decompress to its recorded length")
			return nil, r.err
		}
		// Offsets inside a decompressed body cannot name a file byte;
		// report them at the blob start.
		body = newReader(file+" (decompressed column)", base, raw)
		body.private = true
	case compHuff:
		rawLen := r.count(0, "raw length")
		raw := r.huffDecompress(rawLen)
		if r.err != nil {
			return nil, r.err
		}
		if r.remaining() != 0 {
			r.fail("trailing bytes after huffman chunks")
			return nil, r.err
		}
		body = newReader(file+" (decompressed column)", base, raw)
		body.private = true
	default:
		r.pos--
		r.fail("unknown compression")
	}
	if r.err != nil {
		return nil, r.err
	}
	v := decodeBody(body, t, n, strs)
	if body.err != nil {
		return nil, body.err
	}
	if body.remaining() != 0 {
		body.fail("trailing bytes after column values")
		return nil, body.err
	}
	return v, nil
}

// decodeBody reads the null section and the values.
func decodeBody(r *reader, t vector.Type, n int, strs []string) *vector.Vector {
	var valid vector.Bitmap
	m := n // non-null values
	switch r.u8() {
	case nullsNone:
	case nullsSome:
		valid = readBitmap(r, n)
		if r.err != nil {
			return nil
		}
		m = valid.Count()
	case nullsAll:
		return allNull(t, n)
	default:
		r.pos--
		r.fail("unknown null layout")
		return nil
	}
	if t == vector.Null {
		r.fail("values in a null-typed column")
		return nil
	}
	v := &vector.Vector{Type: t, Len: n}
	switch t {
	case vector.Bool:
		if vals := readBoolVals(r, m); r.err == nil {
			v.Bools = scatter(vals, valid, n)
		}
	case vector.Int, vector.DateTime, vector.TimeSpan:
		vals := make([]int64, m)
		r.readInts(vals)
		v.Ints = scatter(vals, valid, n)
	case vector.Float:
		vals := make([]float64, m)
		r.readFloats(vals)
		v.Floats = scatter(vals, valid, n)
	case vector.String:
		if valid != nil || len(strs) != m {
			strs = make([]string, m)
		}
		decodeStrs(r, v, strs, valid)
	case vector.Dynamic:
		if r.u8() != 0 && r.err == nil {
			r.pos--
			r.fail("unknown dynamic encoding")
		}
		vals := make([]any, 0, min(m, r.remaining()))
		for i := 0; i < m && r.err == nil; i++ {
			vals = append(vals, r.dyn(0))
		}
		if r.err == nil {
			v.Dyns = scatter(vals, valid, n)
		}
	default:
		r.fail("unknown column type")
	}
	if r.err != nil {
		return nil
	}
	v.Valid = valid
	return v
}

func readBoolVals(r *reader, m int) []bool {
	if r.u8() != 0 && r.err == nil {
		r.pos--
		r.fail("unknown bool encoding")
	}
	bm := readBitmap(r, m)
	if r.err != nil {
		return nil
	}
	out := make([]bool, m)
	for i := range out {
		out[i] = bm.Get(i)
	}
	return out
}

// decodeStrs decodes len(strs) non-null strings into strs, or as a
// dictionary and codes.
func decodeStrs(r *reader, v *vector.Vector, strs []string, valid vector.Bitmap) {
	m := len(strs)
	dict, codes := r.readStrs(strs)
	if r.err != nil {
		return
	}
	if dict == nil {
		v.Strs = scatter(strs, valid, v.Len)
		return
	}
	c32 := make([]uint32, m)
	for i, c := range codes {
		c32[i] = uint32(c)
	}
	v.Dict, v.Codes = dict, scatter(c32, valid, v.Len)
}

// scatter spreads m dense values over n rows, leaving zero values in the
// null rows (valid nil means no nulls: vals is returned as is).
func scatter[T any](vals []T, valid vector.Bitmap, n int) []T {
	if valid == nil {
		return vals
	}
	out := make([]T, n)
	j := 0
	for i := 0; i < n; i++ {
		if valid.Get(i) {
			out[i] = vals[j]
			j++
		}
	}
	return out
}

// allNull returns n null rows of type t with zero-valued payload slots.
func allNull(t vector.Type, n int) *vector.Vector {
	v := &vector.Vector{Type: t, Len: n}
	if t == vector.Null {
		return v
	}
	v.Valid = vector.NewBitmap(n)
	switch t {
	case vector.Bool:
		v.Bools = make([]bool, n)
	case vector.Int, vector.DateTime, vector.TimeSpan:
		v.Ints = make([]int64, n)
	case vector.Float:
		v.Floats = make([]float64, n)
	case vector.String:
		v.Dict, v.Codes = []string{""}, make([]uint32, n)
	case vector.Dynamic:
		v.Dyns = make([]any, n)
	}
	return v
}
