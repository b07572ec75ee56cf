package exec

import (
	"weak"

	"github.com/aplite/aplite/vector"
)

// A cached column of few distinct values (an HTTP status, a method, a
// datacenter) carries its one-byte side (vector/small.go) beside its wide
// payload: eight bytes a row for an int, four for a dictionary code. The
// byte side alone determines the wide one (a row's value is SmallVals of
// its byte, or its byte is its dictionary code), so the cache keeps only
// the bytes and widens the column again at each use (issue 29). At 10M
// events that keeps status, method and server_datacenter in 30 MB
// instead of 185 MB, and widening a million rows costs about a
// millisecond, against the tens a decode from the block costs.

// A query that follows another over the same columns (a dashboard's
// panels, a query run again) would widen them all again; so the entry
// keeps a weak pointer to the wide copy it last handed out, and hands it
// out again while it lives. It lives as long as some query holds it and
// until the next collection after that: memory the collector takes back
// as garbage when it needs to, not memory the cache holds.

// widened returns the entry's column as queries read it: V, or the wide
// copy of a packed V.
func (e *ColCacheEntry) widened() *vector.Vector {
	if !isPacked(e.V) {
		return e.V
	}
	e.wideMu.Lock()
	w := e.wide.Value()
	e.wideMu.Unlock()
	if w != nil {
		return w
	}
	w = unpackColumn(e.V)
	e.wideMu.Lock()
	e.wide = weak.Make(w)
	e.wideMu.Unlock()
	return w
}

// packColumn returns the form of v the cache keeps: v without its wide
// payload when its byte side can rebuild it, else v itself.
func packColumn(v *vector.Vector) *vector.Vector {
	codes, vals := v.Small()
	if codes == nil {
		return v
	}
	out := *v
	switch {
	case v.Type.IsInt64Backed() && len(v.Ints) >= v.Len && len(vals) > 0:
		out.Ints = nil
	case v.Type == vector.String && v.Codes != nil && len(v.Codes) >= v.Len:
		out.Codes = nil
	default:
		return v
	}
	if !isPacked(&out) {
		return v
	}
	return &out
}

// unpackColumn returns the column packColumn kept as p, wide again: a new
// payload per call, since vectors handed to a query are its own to slice
// and share, never to change.
func unpackColumn(p *vector.Vector) *vector.Vector {
	if !isPacked(p) {
		return p
	}
	return widen(p, 0, p.Len)
}

// unpackRows returns rows [lo, hi) of the cached column p as Slice does,
// widening only those rows: a narrow time window over a part cached whole
// should not widen the whole part.
func unpackRows(p *vector.Vector, lo, hi int) *vector.Vector {
	if !isPacked(p) {
		return p.Slice(lo, hi)
	}
	// Widen from the 64-row boundary at or below lo, so the validity
	// bitmap is shared word-aligned and Slice takes care of the rest.
	from := lo &^ 63
	return widen(p, from, hi).Slice(lo-from, hi-from)
}

// widen returns rows [lo, hi) of the packed column p (lo a multiple of
// 64) with their wide payload rebuilt from the byte side.
func widen(p *vector.Vector, lo, hi int) *vector.Vector {
	out := *p
	out.Len = hi - lo
	if p.Valid != nil {
		out.Valid = p.Valid[lo/64 : (hi+63)/64]
	}
	codes := p.SmallCodes[lo:hi]
	out.SmallCodes = codes
	if p.Type == vector.String {
		wide := make([]uint32, len(codes))
		for i, c := range codes {
			wide[i] = uint32(c)
		}
		out.Codes = wide
		return &out
	}
	// A full table indexed by the byte needs no bounds check per row.
	var table [256]int64
	copy(table[:], p.SmallVals)
	wide := make([]int64, len(codes))
	for i, c := range codes {
		wide[i] = table[c]
	}
	out.Ints = wide
	return &out
}

// isPacked reports whether p is a column packColumn stripped of its wide
// payload.
func isPacked(p *vector.Vector) bool {
	if p.Const || p.Len == 0 || len(p.SmallCodes) != p.Len {
		return false
	}
	if p.Type == vector.String {
		return p.Codes == nil && p.Dict != nil
	}
	return p.Type.IsInt64Backed() && p.Ints == nil && len(p.SmallVals) > 0
}
