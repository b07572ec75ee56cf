package vector

// The small side. A long column with few distinct values (an HTTP status,
// a port) is eight bytes a row, and a dictionary code four, where one byte
// tells the rows apart. A scan that streams such columns from memory (ten
// million rows do not fit the CPU caches) waits on those bytes more than
// it computes. So a cached column with at most SmallLimit distinct values
// may also carry one byte per row: for a long-like column the index of
// the row's value in SmallVals, for a dictionary-encoded string its
// dictionary code. Ints and Codes stay what every operator reads; only the
// kernels that gain from it read the side (Small), so no other reader has
// to know about it.
//
// The side covers every row, null rows included (a null's slot value has
// its code too). Slice carries it over; Gather, Scatter and every vector
// built anew drop it; a vector that changes Ints or Codes must drop it.

// SmallLimit is the most distinct values a small side codes.
const SmallLimit = 256

// smallSample is how many leading rows decide that a long column has too
// many distinct values to try the whole column.
const smallSample = 4096

// Small returns v's small side (one byte per row, and for a long-like
// vector the value of each byte), or nil when v has none.
func (v *Vector) Small() (codes []uint8, vals []int64) {
	if v.Const || len(v.SmallCodes) != v.Len || v.Len == 0 {
		return nil, nil
	}
	if v.Type.IsInt64Backed() && len(v.SmallVals) > 0 {
		return v.SmallCodes, v.SmallVals
	}
	if v.Type == String && v.Codes != nil && len(v.Dict) <= SmallLimit {
		return v.SmallCodes, nil
	}
	return nil, nil
}

// WithSmall returns v with its small side added (a copy: vectors are
// immutable), or v itself when it is constant, already has one, or has
// more than SmallLimit distinct values.
func (v *Vector) WithSmall() *Vector {
	if v.Const || v.Len == 0 || len(v.SmallCodes) == v.Len {
		return v
	}
	var codes []uint8
	var vals []int64
	switch {
	case v.Type == String && v.Codes != nil && len(v.Dict) <= SmallLimit:
		codes = make([]uint8, v.Len)
		for i, c := range v.Codes[:v.Len] {
			codes[i] = uint8(c)
		}
	case v.Type.IsInt64Backed():
		if codes, vals = smallInts(v.Ints[:v.Len]); codes == nil {
			return v
		}
	default:
		return v
	}
	out := *v
	out.SmallCodes, out.SmallVals = codes, vals
	return &out
}

// smallInts codes xs by distinct value in order of first appearance; nil
// when there are more than SmallLimit of them.
func smallInts(xs []int64) ([]uint8, []int64) {
	// An open-addressed table of twice SmallLimit slots: slot holds
	// code+1, 0 when empty.
	const slots = 2 * SmallLimit
	var table [slots]uint16
	vals := make([]int64, 0, 16)
	code := func(x int64) int {
		h := (uint64(x) * 0x9E3779B97F4A7C15) >> 55 // 9 bits: slots
		for {
			c := table[h]
			if c == 0 {
				if len(vals) == SmallLimit {
					return -1
				}
				vals = append(vals, x)
				table[h] = uint16(len(vals))
				return len(vals) - 1
			}
			if vals[c-1] == x {
				return int(c - 1)
			}
			h = (h + 1) % slots
		}
	}
	for _, x := range xs[:min(len(xs), smallSample)] {
		if code(x) < 0 {
			return nil, nil
		}
	}
	codes := make([]uint8, len(xs))
	last, lastCode := xs[0], uint8(code(xs[0]))
	for i, x := range xs {
		if x != last {
			c := code(x)
			if c < 0 {
				return nil, nil
			}
			last, lastCode = x, uint8(c)
		}
		codes[i] = lastCode
	}
	return codes, vals
}
