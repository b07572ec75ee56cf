package exec

import (
	"math"

	"github.com/aplite/aplite/vector"
)

// keyTable gives every distinct join key tuple a dense id (0, 1, 2, ...).
// The build side of a join inserts its keys; the probe side only looks
// them up, so the table holds the distinct keys of the build side alone.
// A single integer-like or string key has its own map (a dictionary string
// column is hashed once per distinct value); other tuples are encoded into
// bytes with encodeKey.
//
// A row whose key has a null (or a NaN) gets id -1: null never equals
// anything, so such a row matches nothing and only appears where an outer
// or anti join keeps unmatched rows.
//
// Inserting is single-threaded; once built, any number of goroutines may
// look keys up at the same time (lookups keep their scratch space local).
type keyTable struct {
	ints   map[int64]int32
	strs   map[string]int32
	tuples map[string]int32
	n      int32
}

// keyScratch is the per-call scratch space of keyTable.ids.
type keyScratch struct {
	buf  []byte
	memo []int32 // dictionary code → id+1 (0 unknown, -1 absent)
}

func newKeyTable(types []vector.Type) *keyTable {
	t := &keyTable{}
	switch {
	case len(types) == 1 && (types[0].IsInt64Backed() || types[0] == vector.Bool):
		t.ints = map[int64]int32{}
	case len(types) == 1 && types[0] == vector.String:
		t.strs = map[string]int32{}
	default:
		t.tuples = map[string]int32{}
	}
	return t
}

// ids writes the key id of each of the n rows of cols into out. With
// insert, unknown keys get new ids; without, they get -1.
func (t *keyTable) ids(cols []*vector.Vector, n int, insert bool, out []int32) {
	var sc keyScratch
	switch {
	case t.ints != nil:
		t.intIDs(cols[0], n, insert, out)
	case t.strs != nil:
		t.strIDs(cols[0], n, insert, out, &sc)
	default:
		t.tupleIDs(cols, n, insert, out, &sc)
	}
}

func (t *keyTable) find(m map[int64]int32, k int64, insert bool) int32 {
	if id, ok := m[k]; ok {
		return id
	}
	if !insert {
		return -1
	}
	m[k] = t.n
	t.n++
	return t.n - 1
}

func (t *keyTable) intIDs(c *vector.Vector, n int, insert bool, out []int32) {
	for i := 0; i < n; i++ {
		if c.IsNull(i) {
			out[i] = -1
			continue
		}
		var k int64
		if c.Type == vector.Bool {
			if c.Bool(i) {
				k = 1
			}
		} else {
			k = c.Int(i)
		}
		out[i] = t.find(t.ints, k, insert)
	}
}

func (t *keyTable) findStr(s string, insert bool) int32 {
	if id, ok := t.strs[s]; ok {
		return id
	}
	if !insert {
		return -1
	}
	t.strs[s] = t.n
	t.n++
	return t.n - 1
}

func (t *keyTable) strIDs(c *vector.Vector, n int, insert bool, out []int32, sc *keyScratch) {
	if c.Codes == nil || c.Const {
		for i := 0; i < n; i++ {
			if c.IsNull(i) {
				out[i] = -1
				continue
			}
			out[i] = t.findStr(c.Str(i), insert)
		}
		return
	}
	if cap(sc.memo) < len(c.Dict) {
		sc.memo = make([]int32, len(c.Dict))
	}
	memo := sc.memo[:len(c.Dict)]
	clear(memo)
	for i := 0; i < n; i++ {
		if c.IsNull(i) {
			out[i] = -1
			continue
		}
		code := c.Codes[i]
		if memo[code] == 0 {
			memo[code] = t.findStr(c.Dict[code], insert) + 1
			if memo[code] == 0 {
				memo[code] = -1
			}
		}
		if memo[code] < 0 {
			out[i] = -1
		} else {
			out[i] = memo[code] - 1
		}
	}
}

func (t *keyTable) tupleIDs(cols []*vector.Vector, n int, insert bool, out []int32, sc *keyScratch) {
	for i := 0; i < n; i++ {
		if nullKey(cols, i) {
			out[i] = -1
			continue
		}
		sc.buf = encodeKey(sc.buf[:0], cols, i)
		if id, ok := t.tuples[string(sc.buf)]; ok {
			out[i] = id
			continue
		}
		if !insert {
			out[i] = -1
			continue
		}
		t.tuples[string(sc.buf)] = t.n
		out[i] = t.n
		t.n++
	}
}

// nullKey reports whether row i has a null or NaN in any key column.
func nullKey(cols []*vector.Vector, i int) bool {
	for _, c := range cols {
		if c.IsNull(i) {
			return true
		}
		if c.Type == vector.Float && math.IsNaN(c.Float(i)) {
			return true
		}
	}
	return false
}
