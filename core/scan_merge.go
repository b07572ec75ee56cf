package core

import (
	mbits "math/bits"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// A field whose values are integers in some rows and floats in others is
// stored as two columns, (name, int) and (name, real); encoders write
// whole floats without a point, so a float field of real logs almost
// always has a few integer rows. mergedNumeric turns the pair into the
// one float vector a pure float column would give, in a single pass
// without boxing a value, and the engine caches the merged vector like a
// stored column so repeated queries pay nothing extra.

// mergedNumeric reads the columns keys of part p, all numeric, as one
// vector of type t (Float, or Int when every piece is Int). ok is false
// when a piece has a shape the fast merge does not handle (constant,
// dictionary, not numeric); readColumn then merges value by value.
func (x *execCtx) mergedNumeric(p store.Part, keys []store.ColKey, t vector.Type, n int) (v *vector.Vector, ok bool, err error) {
	if t != vector.Float && t != vector.Int {
		return nil, false, nil
	}
	for _, k := range keys {
		if !k.Type.IsNumeric() || (t == vector.Int && k.Type != vector.Int) {
			return nil, false, nil
		}
	}
	cacheable := p.Immutable() && x.cache != nil
	key := colCacheKey{part: p.ID(), col: store.ColKey{Name: keys[0].Name, Type: t}, merged: true}
	if cacheable {
		if v := x.cache.get(key); v != nil {
			x.stats.blocksCached.Add(1)
			return v, true, nil
		}
	}
	vs := make([]*vector.Vector, 0, len(keys))
	for _, k := range keys {
		// The pieces are read past the cache: only the merged vector is
		// worth keeping.
		v, err := p.ReadColumn(k)
		if err != nil {
			return nil, false, err
		}
		if v == nil || v.Type == vector.Null {
			continue
		}
		if v.Const || v.Len != n || (v.Type != vector.Int && v.Type != vector.Float) {
			return nil, false, nil
		}
		vs = append(vs, v)
	}
	v = mergeNumeric(vs, t, n)
	if cacheable {
		x.cache.put(key, v)
	}
	return v, true, nil
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
