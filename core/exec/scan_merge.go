package exec

import (
	mbits "math/bits"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// A field whose values are integers in some rows and floats in others is
// stored as two columns, (name, int) and (name, real); encoders write
// whole floats without a point, so a float field of real logs almost
// always has a few integer rows. mergeNumeric turns the pair into the
// one float vector a pure float column would give, in a single pass
// without boxing a value, and the engine caches converted vectors like
// stored columns so repeated queries pay nothing extra.

// convertedColumn reads the stored columns keys of part p (one field,
// stored with other types than the schema's, or with several) as one
// vector of type c.Type. The result is cached per part like a stored
// column, so the conversion (boxing into Dynamic, widening ints) is paid
// once, not by every query; the pieces themselves are read past the cache.
func (x *Ctx) convertedColumn(p store.Part, keys []store.ColKey, c ColDef, n int) (*vector.Vector, error) {
	cacheable := p.Immutable() && x.Cache != nil
	key := colCacheKey{part: p.ID(), Col: store.ColKey{Name: c.Name, Type: c.Type}, Converted: true}
	if cacheable {
		if v := x.Cache.Get(key); v != nil {
			x.Stats.BlocksCached.Add(1)
			return v, nil
		}
	}
	vs := make([]*vector.Vector, 0, len(keys))
	for _, k := range keys {
		v, err := p.ReadColumn(k)
		if err != nil {
			return nil, err
		}
		if v != nil && v.Type != vector.Null {
			vs = append(vs, v)
		}
	}
	var v *vector.Vector
	switch {
	case len(vs) == 0:
		return vector.NewNulls(c.Type, n), nil
	case len(vs) == 1:
		v = castVector(vs[0], c.Type)
	case numericPieces(vs, c.Type, n):
		v = mergeNumeric(vs, c.Type, n)
	default:
		v = mergeValues(vs, c.Type, n)
	}
	v = withMixed(v)
	if cacheable {
		x.Cache.Put(key, v)
	}
	return v, nil
}

// numericPieces reports whether mergeNumeric can overlay vs into type t:
// every piece a plain Int or Float column of n rows (Int only when t is).
func numericPieces(vs []*vector.Vector, t vector.Type, n int) bool {
	if t != vector.Float && t != vector.Int {
		return false
	}
	for _, v := range vs {
		if v.Const || v.Len != n || (v.Type != vector.Int && v.Type != vector.Float) || (t == vector.Int && v.Type != vector.Int) {
			return false
		}
	}
	return true
}

// mergeValues is the general merge: a row takes the value of the first
// piece where it is not null, converted to t.
func mergeValues(vs []*vector.Vector, t vector.Type, n int) *vector.Vector {
	out := vector.New(t, n)
	for i := 0; i < n; i++ {
		var val any
		for _, v := range vs {
			if !v.IsNull(i) {
				val = v.Value(i)
				break
			}
		}
		if t == vector.Dynamic {
			out.AppendValue(val)
		} else {
			out.AppendValue(ConvertValue(val, t))
		}
	}
	return out
}

// mergeNumeric overlays vs (each n rows of Int or Float) into one vector
// of type t: a row takes the value of the first piece where it is not
// null, as the value-by-value merge does, and is null where every piece
// is.
func mergeNumeric(vs []*vector.Vector, t vector.Type, n int) *vector.Vector {
	out := &vector.Vector{Type: t, Len: n}
	if t == vector.Float {
		out.Floats = make([]float64, n)
	} else {
		out.Ints = make([]int64, n)
	}
	valid := vector.NewBitmap(n)
	// Later pieces first, so an earlier piece overwrites them.
	for k := len(vs) - 1; k >= 0; k-- {
		v := vs[k]
		full := vector.NewBitmapSet(n)
		vb := v.Valid
		if vb == nil {
			vb = full
		}
		for w := range valid {
			bits := vb[w] & full[w]
			if bits == 0 {
				continue
			}
			valid[w] |= bits
			lo, hi := w*64, min(w*64+64, n)
			if bits == full[w] {
				copyRun(out, v, t, lo, hi)
				continue
			}
			for b := bits; b != 0; b &= b - 1 {
				i := lo + mbits.TrailingZeros64(b)
				copyRun(out, v, t, i, i+1)
			}
		}
	}
	if valid.Count() != n {
		out.Valid = valid
	}
	return out
}

// copyRun copies rows [lo, hi) of v into out, converting ints to floats
// when out is Float.
func copyRun(out, v *vector.Vector, t vector.Type, lo, hi int) {
	switch {
	case t == vector.Int:
		copy(out.Ints[lo:hi], v.Ints[lo:hi])
	case v.Type == vector.Int:
		for i, x := range v.Ints[lo:hi] {
			out.Floats[lo+i] = float64(x)
		}
	default:
		copy(out.Floats[lo:hi], v.Floats[lo:hi])
	}
}
