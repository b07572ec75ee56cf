package store

import (
	"fmt"
	"math"

	"github.com/aplite/aplite/vector"
)

// checkRows validates a batch before it is logged, so a malformed batch is
// rejected with an error instead of corrupting the WAL or the buffer.
func checkRows(r *Rows) error {
	if r == nil {
		return fmt.Errorf("store: nil rows")
	}
	if r.N < 0 || len(r.Time) != r.N {
		return fmt.Errorf("store: rows has N=%d but %d times", r.N, len(r.Time))
	}
	if len(r.Keys) != len(r.Cols) {
		return fmt.Errorf("store: rows has %d keys but %d columns", len(r.Keys), len(r.Cols))
	}
	seen := make(map[ColKey]bool, len(r.Keys))
	for i, k := range r.Keys {
		c := r.Cols[i]
		switch {
		case c == nil:
			return fmt.Errorf("store: column %q is nil", k.Name)
		case c.Len != r.N:
			return fmt.Errorf("store: column %q has %d rows, want %d", k.Name, c.Len, r.N)
		case c.Type != k.Type:
			return fmt.Errorf("store: column %q has type %v, key says %v", k.Name, c.Type, k.Type)
		case k.Type > vector.Dynamic:
			return fmt.Errorf("store: column %q has unknown type %d", k.Name, k.Type)
		case seen[k]:
			return fmt.Errorf("store: column %q (%v) appears twice", k.Name, k.Type)
		case k.Name == TimeField && k.Type == vector.DateTime, k.Name == SysTimeField && k.Type == vector.DateTime:
			return fmt.Errorf("store: %s is a system column and cannot be set as a field", k.Name)
		}
		seen[k] = true
	}
	return nil
}

// encodeRows appends the WAL payload of r (FORMAT.md, "rows batch").
func encodeRows(b []byte, r *Rows) ([]byte, error) {
	b = putUvarint(b, uint64(r.N))
	b = putVarint(b, r.SysTime)
	for _, t := range r.Time {
		b = putU64(b, uint64(t))
	}
	b = putUvarint(b, uint64(len(r.Keys)))
	var err error
	for i, k := range r.Keys {
		b = putBytes(b, k.Name)
		b = append(b, byte(k.Type))
		if b, err = encodeRowsCol(b, r.Cols[i], r.N); err != nil {
			return b, fmt.Errorf("column %q: %w", k.Name, err)
		}
	}
	return b, nil
}

func encodeRowsCol(b []byte, v *vector.Vector, n int) ([]byte, error) {
	if v.Valid == nil && !v.Const && v.Codes == nil {
		if out, ok := encodeRowsPlain(append(b, 0), v, n); ok {
			return out, nil
		}
	}
	if v.Type != vector.Null && v.HasNulls() {
		b = append(b, 1)
		b = putBitsFunc(b, n, func(i int) bool { return !v.IsNull(i) })
	} else {
		b = append(b, 0)
	}
	switch v.Type {
	case vector.Bool:
		b = putBitsFunc(b, n, func(i int) bool { return !v.IsNull(i) && v.Bool(i) })
	case vector.Int, vector.DateTime, vector.TimeSpan:
		for i := 0; i < n; i++ {
			b = putU64(b, uint64(v.Int(i)))
		}
	case vector.Float:
		for i := 0; i < n; i++ {
			b = putF64(b, v.Float(i))
		}
	case vector.String:
		for i := 0; i < n; i++ {
			b = putBytes(b, v.Str(i))
		}
	case vector.Dynamic:
		var err error
		for i := 0; i < n; i++ {
			var x any
			if !v.IsNull(i) {
				x = v.Dyn(i)
			}
			if b, err = putDyn(b, x); err != nil {
				return b, err
			}
		}
	}
	return b, nil
}

// encodeRowsPlain is the fast path for columns without nulls, constants
// or dictionaries: straight loops over the payload slice.
func encodeRowsPlain(b []byte, v *vector.Vector, n int) ([]byte, bool) {
	switch v.Type {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		for _, x := range v.Ints[:n] {
			b = putU64(b, uint64(x))
		}
	case vector.Float:
		for _, x := range v.Floats[:n] {
			b = putF64(b, x)
		}
	case vector.String:
		for _, s := range v.Strs[:n] {
			b = putBytes(b, s)
		}
	case vector.Bool:
		bools := v.Bools[:n]
		b = putBitsFunc(b, n, func(i int) bool { return bools[i] })
	default:
		return b, false
	}
	return b, true
}

// putBitsFunc appends ceil(n/8) bytes with bit i set when f(i).
func putBitsFunc(b []byte, n int, f func(int) bool) []byte {
	for i := 0; i < n; i += 8 {
		var c byte
		for j := 0; j < 8 && i+j < n; j++ {
			if f(i + j) {
				c |= 1 << uint(j)
			}
		}
		b = append(b, c)
	}
	return b
}

// decodeRows parses a WAL payload back into a batch.
func decodeRows(rd *reader) *Rows {
	r := &Rows{}
	r.N = rd.count(8, "row")
	r.SysTime = rd.varint()
	tb := rd.take(8 * r.N)
	if rd.err != nil {
		return nil
	}
	r.Time = make([]int64, r.N)
	for i := range r.Time {
		r.Time[i] = int64(leU64(tb[8*i:]))
	}
	ncols := rd.count(2, "column")
	for c := 0; c < ncols && rd.err == nil; c++ {
		k := ColKey{Name: rd.str(), Type: vector.Type(rd.u8())}
		if k.Type > vector.Dynamic {
			rd.fail("unknown column type")
			break
		}
		r.Keys = append(r.Keys, k)
		r.Cols = append(r.Cols, decodeRowsCol(rd, k.Type, r.N))
	}
	if rd.err != nil {
		return nil
	}
	if err := checkRows(r); err != nil { // a batch Append would refuse
		rd.fail(err.Error())
		return nil
	}
	return r
}

func decodeRowsCol(rd *reader, t vector.Type, n int) *vector.Vector {
	v := &vector.Vector{Type: t, Len: n}
	if rd.u8() == 1 {
		v.Valid = readBitmap(rd, n)
	}
	switch t {
	case vector.Null:
		v.Valid = nil
	case vector.Bool:
		bm := readBitmap(rd, n)
		if rd.err == nil {
			v.Bools = make([]bool, n)
			for i := range v.Bools {
				v.Bools[i] = bm.Get(i)
			}
		}
	case vector.Int, vector.DateTime, vector.TimeSpan:
		if b := rd.take(8 * n); rd.err == nil {
			v.Ints = make([]int64, n)
			for i := range v.Ints {
				v.Ints[i] = int64(leU64(b[8*i:]))
			}
		}
	case vector.Float:
		if b := rd.take(8 * n); rd.err == nil {
			v.Floats = make([]float64, n)
			for i := range v.Floats {
				v.Floats[i] = math.Float64frombits(leU64(b[8*i:]))
			}
		}
	case vector.String:
		v.Strs = readStrings(rd, n)
	case vector.Dynamic:
		v.Dyns = make([]any, 0, min(n, rd.remaining()))
		for i := 0; i < n && rd.err == nil; i++ {
			v.Dyns = append(v.Dyns, rd.dyn(0))
		}
	}
	return v
}

// readStrings reads n length-prefixed strings into one shared arena, so a
// batch costs two allocations instead of one per value.
func readStrings(rd *reader, n int) []string {
	start := rd.pos
	total := 0
	for i := 0; i < n && rd.err == nil; i++ {
		total += len(rd.bytes())
	}
	if rd.err != nil {
		return nil
	}
	arena := make([]byte, 0, total)
	out := make([]string, n)
	rd.pos = start
	for i := range out {
		s := rd.bytes()
		off := len(arena)
		arena = append(arena, s...)
		out[i] = bytesToString(arena[off:len(arena):len(arena)])
	}
	return out
}

// readBitmap reads ceil(n/8) bytes of bits as a vector.Bitmap.
func readBitmap(rd *reader, n int) vector.Bitmap {
	b := rd.take((n + 7) / 8)
	if rd.err != nil {
		return nil
	}
	bm := vector.NewBitmap(n)
	for i, c := range b {
		bm[i/8] |= uint64(c) << (uint(i%8) * 8)
	}
	if r := n % 64; r != 0 && len(bm) > 0 {
		bm[len(bm)-1] &= 1<<uint(r) - 1 // stray bits past n are not rows
	}
	return bm
}
