package agg

import (
	"encoding/binary"
	"math"
	"sort"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/aplite/aplite/vector"
)

// Hashes identify values for dcount (whose exact sets hold hashes, not
// values) and feed its HyperLogLog sketch, so they must be well mixed in
// every bit. They must also be the same in every process: a distributed
// query merges states that query nodes and the console's helper engines
// built and encoded (the states carry hashes), so a string hashes with
// xxHash64, which has no seed, never with a per-process maphash seed
// (which counted each value once per engine that saw it).

// mix64 is the splitmix64 finaliser: a bijection on uint64, so distinct
// longs never collide, with full avalanche for the sketch.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashFloat makes 0 and -0 equal and every NaN one value.
func hashFloat(f float64) uint64 {
	switch {
	case f == 0:
		f = 0
	case f != f:
		f = math.NaN()
	}
	return mix64(math.Float64bits(f) ^ 0x5851f42d4c957f2d)
}

func hashString(s string) uint64 { return xxhash.Sum64String(s) }

// hashDyn hashes a dynamic value by its type and content; arrays and bags
// hash their elements (bags in key order), so equal JSON values collide
// and different ones almost never do.
func hashDyn(x any) uint64 {
	h := xxhash.New()
	writeDyn(h, x)
	return h.Sum64()
}

func writeDyn(h *xxhash.Digest, x any) {
	var buf [9]byte
	put := func(tag byte, u uint64) {
		buf[0] = tag
		binary.LittleEndian.PutUint64(buf[1:], u)
		h.Write(buf[:])
	}
	switch v := x.(type) {
	case nil:
		h.Write([]byte{0})
	case bool:
		if v {
			put(1, 1)
		} else {
			put(1, 0)
		}
	case int64:
		put(2, uint64(v))
	case int:
		put(2, uint64(v))
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			put(2, uint64(int64(v))) // 1 and 1.0 are one JSON number
		} else {
			put(3, math.Float64bits(v))
		}
	case string:
		h.Write([]byte{4})
		h.WriteString(v)
		h.Write([]byte{0})
	case time.Time:
		put(5, uint64(v.UnixNano()))
	case time.Duration:
		put(6, uint64(v))
	case []any:
		put(7, uint64(len(v)))
		for _, e := range v {
			writeDyn(h, e)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		put(8, uint64(len(v)))
		for _, k := range keys {
			h.WriteString(k)
			h.Write([]byte{0})
			writeDyn(h, v[k])
		}
	default:
		h.Write([]byte{9})
	}
}

// hashRows computes the hash of every update row of v into out (which is
// reused across batches) and reports per row whether it was non-null.
// Dictionary-encoded strings are hashed once per dictionary entry.
type hasher struct {
	out     []uint64
	ok      []bool
	dictH   []uint64
	dictPtr *string
	dictLen int
}

func (hs *hasher) hashRows(v *vector.Vector, sel []int32, n int) ([]uint64, []bool) {
	hs.out = growSlice(hs.out[:0], n)
	hs.ok = growBool(hs.ok[:0], n)
	out, ok := hs.out, hs.ok
	for k := 0; k < n; k++ {
		r := physRow(sel, k)
		if v.Const {
			r = 0
		}
		ok[k] = validAt(v.Valid, r)
	}
	switch v.Type {
	case vector.Int, vector.DateTime, vector.TimeSpan:
		for k := 0; k < n; k++ {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			out[k] = mix64(uint64(v.Ints[r]))
		}
	case vector.Float:
		for k := 0; k < n; k++ {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			out[k] = hashFloat(v.Floats[r])
		}
	case vector.Bool:
		for k := 0; k < n; k++ {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			if v.Bools[r] {
				out[k] = mix64(1)
			} else {
				out[k] = mix64(0)
			}
		}
	case vector.String:
		if v.Codes != nil {
			hs.hashDict(v.Dict)
			for k := 0; k < n; k++ {
				r := physRow(sel, k)
				if v.Const {
					r = 0
				}
				out[k] = hs.dictH[v.Codes[r]]
			}
			break
		}
		for k := 0; k < n; k++ {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			out[k] = hashString(v.Strs[r])
		}
	case vector.Dynamic:
		for k := 0; k < n; k++ {
			r := physRow(sel, k)
			if v.Const {
				r = 0
			}
			if ok[k] && v.Dyns[r] != nil {
				out[k] = hashDyn(v.Dyns[r])
			} else {
				ok[k] = false
			}
		}
	default:
		for k := range ok[:n] {
			ok[k] = false
		}
	}
	return out[:n], ok[:n]
}

func (hs *hasher) hashDict(dict []string) {
	if len(dict) > 0 && hs.dictLen == len(dict) && hs.dictPtr == &dict[0] {
		return
	}
	hs.dictH = growSlice(hs.dictH[:0], len(dict))
	for i, s := range dict {
		hs.dictH[i] = hashString(s)
	}
	if len(dict) > 0 {
		hs.dictPtr, hs.dictLen = &dict[0], len(dict)
	}
}
