package exec

import (
	"encoding/binary"
	"math"

	"github.com/aplite/aplite/vector"
)

// groupTable assigns a dense group id (0, 1, 2, ...) to every distinct key
// tuple and remembers each group's key values. It has fast paths for the
// common shapes: no key, one integer-like key (small non-negative values
// index an array directly), one string key (dictionary columns are looked
// up once per distinct value); any other tuple is encoded into bytes.
type groupTable struct {
	types []vector.Type
	keys  []*vector.Vector // one per key column, one row per group
	N     int

	small    []int32 // one int key: id+1 for values in [0, len(small))
	ints     map[int64]uint32
	nullID   int32 // one key: id+1 of the null group
	strs     map[string]uint32
	tuples   map[string]uint32
	buf      []byte
	dictMemo []int32 // dictionary code → id+1, valid for memoDict
	memoDict *string // the dictionary dictMemo belongs to (its first entry)
	smallLo  int64   // small[] covers [smallLo, smallLo+smallKeyLimit)
	smallSet bool

	// intern, when set, groups a string key by interned id: byID[id] is
	// the group id + 1, and gid records each group's interned id.
	intern *Interner
	byID   []int32
	gid    []uint32

	keyBytes keyArena // the bytes of the string keys
	// held counts the bytes of string keys and encoded tuples the table
	// keeps, past the fixed cost per group (the summarize sink charges
	// both to the query's budget).
	held int64

	// dyn lists the dynamic key columns, whose groups may hold values of
	// several kinds (preferKey).
	dyn []int

	// codeCols and memo are assignDictTuples' scratch, kept across batches.
	codeCols []codeCol
	memo     []int32
	combos   []int32
}

const smallKeyLimit = 1 << 16

// tupleEntryBytes is what a tuple key costs past its bytes: the key
// string's allocation and the map's slot with its growth slack (a heap
// profile of 8 summaries by two keys showed ~106 bytes a group in the map
// for 14-byte tuples).
const tupleEntryBytes = 96

func newGroupTable(types []vector.Type) *groupTable {
	g := &groupTable{types: types}
	for k, t := range types {
		g.keys = append(g.keys, vector.New(t, 16))
		if t == vector.Dynamic {
			g.dyn = append(g.dyn, k)
		}
	}
	switch {
	case len(types) == 1 && (types[0].IsInt64Backed() || types[0] == vector.Bool):
		g.ints = map[int64]uint32{}
	case len(types) == 1 && types[0] == vector.String:
		g.strs = make(map[string]uint32, 4096)
	default:
		g.tuples = map[string]uint32{}
	}
	return g
}

// newGroup records the key values of row i as a new group. String keys
// are copied: a decoded string may point into a buffer shared by a whole
// chunk of input (the decoders' arenas), and a group outlives the batch,
// so keeping the string itself would keep every such buffer that brought
// a new key alive until the query ends (a stream of chunks then held most
// of the file).
func (g *groupTable) newGroup(cols []*vector.Vector, i int) uint32 {
	g.materialize() // the keys are appended in group order
	for k, c := range cols {
		v := g.keys[k]
		v.AppendFrom(c, i)
		if v.Type == vector.String && len(v.Strs) > 0 && !c.IsNull(i) {
			v.Strs[len(v.Strs)-1] = g.keyBytes.clone(v.Strs[len(v.Strs)-1])
			g.held += int64(len(v.Strs[len(v.Strs)-1]))
		}
	}
	g.N++
	return uint32(g.N - 1)
}

// assign computes the group id of each live row of the key columns.
func (g *groupTable) assign(cols []*vector.Vector, rows []int32, n int, out []uint32) {
	if len(g.types) == 0 {
		if g.N == 0 {
			g.N = 1
		}
		for i := range out {
			out[i] = 0
		}
		return
	}
	switch {
	case g.ints != nil:
		g.assignInts(cols, rows, out)
	case g.strs != nil:
		g.assignStrings(cols, rows, out)
	default:
		g.assignTuples(cols, rows, out)
	}
}

// row maps the k-th live row to its physical row.
func row(rows []int32, k int) int {
	if rows == nil {
		return k
	}
	return int(rows[k])
}

func (g *groupTable) assignInts(cols []*vector.Vector, rows []int32, out []uint32) {
	c := cols[0]
	var ints []int64
	if c.Type == vector.Bool {
		ints = make([]int64, len(c.Bools))
		for i, b := range c.Bools {
			if b {
				ints[i] = 1
			}
		}
	} else {
		ints = c.Ints
	}
	st := step(c)
	if st == 1 && c.Valid == nil && g.smallSet && g.small != nil {
		// Hot path: no nulls, the dense window in place; fall back to the
		// general loop from the first row outside it.
		small, lo := g.small, g.smallLo
		for k := range out {
			i := k
			if rows != nil {
				i = int(rows[k])
			}
			off := uint64(ints[i] - lo)
			if off >= smallKeyLimit || small[off] == 0 {
				g.assignIntsFrom(cols, ints, st, rows, out, k)
				return
			}
			out[k] = uint32(small[off] - 1)
		}
		return
	}
	g.assignIntsFrom(cols, ints, st, rows, out, 0)
}

// assignIntsFrom is the general loop of assignInts from live row k0 on.
func (g *groupTable) assignIntsFrom(cols []*vector.Vector, ints []int64, st int, rows []int32, out []uint32, k0 int) {
	c := cols[0]
	for k := k0; k < len(out); k++ {
		i := row(rows, k)
		if c.IsNull(i) {
			if g.nullID == 0 {
				g.nullID = int32(g.newGroup(cols, i)) + 1
			}
			out[k] = uint32(g.nullID - 1)
			continue
		}
		v := ints[i*st]
		if !g.smallSet {
			// Dense keys (status codes, bin indexes) index an array around
			// the first value seen instead of hashing.
			g.smallSet = true
			g.smallLo = 0
			if v < 0 || v >= smallKeyLimit/2 {
				g.smallLo = v - smallKeyLimit/2
			}
		}
		if off := uint64(v - g.smallLo); off < smallKeyLimit {
			if g.small == nil {
				g.small = make([]int32, smallKeyLimit)
			}
			id := g.small[off]
			if id == 0 {
				id = int32(g.newGroup(cols, i)) + 1
				g.small[off] = id
			}
			out[k] = uint32(id - 1)
			continue
		}
		id, ok := g.ints[v]
		if !ok {
			id = g.newGroup(cols, i)
			g.ints[v] = id
		}
		out[k] = id
	}
}

func (g *groupTable) assignStrings(cols []*vector.Vector, rows []int32, out []uint32) {
	c := cols[0]
	if g.intern != nil {
		g.assignInterned(cols, c, rows, out)
		return
	}
	if c.Codes != nil && !c.Const && len(c.Dict) > 0 {
		// Morsels of one part share its dictionary: keep the memo across
		// batches while the dictionary is the same.
		if g.memoDict != &c.Dict[0] || len(g.dictMemo) != len(c.Dict) {
			g.dictMemo = make([]int32, len(c.Dict))
			g.memoDict = &c.Dict[0]
		}
		memo := g.dictMemo
		for k := range out {
			i := row(rows, k)
			if c.Valid != nil && !c.Valid.Get(i) {
				out[k] = g.nullGroup(cols, i)
				continue
			}
			code := c.Codes[i]
			id := memo[code]
			if id == 0 {
				id = int32(g.stringGroup(cols, i, c.Dict[code])) + 1
				memo[code] = id
			}
			out[k] = uint32(id - 1)
		}
		return
	}
	for k := range out {
		i := row(rows, k)
		if c.IsNull(i) {
			out[k] = g.nullGroup(cols, i)
			continue
		}
		out[k] = g.stringGroup(cols, i, c.Str(i))
	}
}

func (g *groupTable) nullGroup(cols []*vector.Vector, i int) uint32 {
	if g.nullID == 0 {
		g.nullID = int32(g.newGroup(cols, i)) + 1
	}
	return uint32(g.nullID - 1)
}

func (g *groupTable) stringGroup(cols []*vector.Vector, i int, s string) uint32 {
	id, ok := g.strs[s]
	if !ok {
		id = g.newGroup(cols, i)
		g.strs[g.keys[0].Strs[len(g.keys[0].Strs)-1]] = id // the copy newGroup kept
	}
	return id
}

func (g *groupTable) assignTuples(cols []*vector.Vector, rows []int32, out []uint32) {
	if g.assignDictTuples(cols, rows, out) {
		return
	}
	for k := range out {
		i := row(rows, k)
		g.buf = encodeKey(g.buf[:0], cols, i)
		id, ok := g.tuples[string(g.buf)]
		if !ok {
			id = g.newGroup(cols, i)
			g.tuples[string(g.buf)] = id
			g.held += int64(len(g.buf)) + tupleEntryBytes
		} else if g.dyn != nil {
			g.preferKey(cols, i, id)
		}
		out[k] = id
	}
}

// preferKey keeps what a dynamic key shows independent of the order
// rows arrive in. encodeKey writes a number as its text, so 200, 200.0
// and "200" are one group; the group shows the value of the first kind
// it holds in the order bool, long, real, string, other, not the value
// the first worker or node to merge happened to meet (one node answered
// 200, two nodes "200": internal/difftest).
func (g *groupTable) preferKey(cols []*vector.Vector, i int, id uint32) {
	for _, k := range g.dyn {
		if cols[k].IsNull(i) {
			continue
		}
		v, keys := cols[k].Dyn(i), g.keys[k]
		if dynKind(v) < dynKind(keys.Dyns[id]) {
			keys.Dyns[id] = v
		}
	}
}

// dynKind ranks the kinds of value one dynamic group can hold.
func dynKind(v any) int {
	switch v.(type) {
	case bool:
		return 0
	case int64:
		return 1
	case float64:
		return 2
	case string:
		return 3
	}
	return 4
}

// dictTupleLimit bounds the combinations of dictionary codes that
// assignDictTuples memoizes (the product of the dictionaries' sizes).
const dictTupleLimit = 1 << 16

// assignDictTuples groups rows whose keys are all coded without nulls:
// dictionary-encoded strings (method, server_datacenter, ...) or longs
// with a small side (status): it combines the rows' codes into one number
// and memoizes the group of each combination, a perfect hash, so the
// tuple is encoded and hashed once per combination instead of once per
// row. It reports false, doing nothing, for other keys.
func (g *groupTable) assignDictTuples(cols []*vector.Vector, rows []int32, out []uint32) bool {
	size := 1
	g.codeCols = g.codeCols[:0]
	for _, c := range cols {
		if c.Const || c.Valid != nil {
			return false
		}
		cc := codeCol{card: len(c.Dict), wide: c.Codes}
		if c.Codes == nil {
			small, vals := c.Small()
			if small == nil {
				return false
			}
			cc = codeCol{card: len(vals), narrow: small}
		}
		if cc.card == 0 {
			return false
		}
		size *= cc.card
		if size > dictTupleLimit {
			return false
		}
		g.codeCols = append(g.codeCols, cc)
	}
	g.memo = growMemo(g.memo, size) // combination → group id + 1
	memo, combos := g.memo, g.combine(rows, len(out))
	for k := range out {
		i := row(rows, k)
		combo := combos[k]
		if id := memo[combo]; id != 0 {
			out[k] = uint32(id - 1)
			continue
		}
		g.buf = encodeKey(g.buf[:0], cols, i)
		id, ok := g.tuples[string(g.buf)]
		if !ok {
			id = g.newGroup(cols, i)
			g.tuples[string(g.buf)] = id
			g.held += int64(len(g.buf)) + tupleEntryBytes
		}
		memo[combo] = int32(id) + 1
		out[k] = id
	}
	return true
}

// codeCol is one key column of assignDictTuples: its codes (dictionary
// codes, or the small side's bytes) and how many there are.
type codeCol struct {
	card   int
	wide   []uint32
	narrow []uint8
}

// combine computes every row's combination of codes a column at a time,
// so each column's loop is one tight pass without a branch per row.
func (g *groupTable) combine(rows []int32, n int) []int32 {
	if cap(g.combos) < n {
		g.combos = make([]int32, n)
	}
	combos := g.combos[:n]
	clear(combos)
	for _, c := range g.codeCols {
		card := int32(c.card)
		switch {
		case c.wide != nil && rows == nil:
			for k, x := range c.wide[:n] {
				combos[k] = combos[k]*card + int32(x)
			}
		case c.narrow != nil && rows == nil:
			for k, x := range c.narrow[:n] {
				combos[k] = combos[k]*card + int32(x)
			}
		case c.wide != nil:
			for k, r := range rows[:n] {
				combos[k] = combos[k]*card + int32(c.wide[r])
			}
		default:
			for k, r := range rows[:n] {
				combos[k] = combos[k]*card + int32(c.narrow[r])
			}
		}
	}
	return combos
}

// growMemo returns a zeroed memo of size entries, reusing m's memory: a
// batch's codes mean nothing to the next one (each has its dictionaries).
func growMemo(m []int32, size int) []int32 {
	if cap(m) < size {
		return make([]int32, size)
	}
	m = m[:size]
	clear(m)
	return m
}

// encodeKey appends a type-tagged encoding of row i of cols, so equal
// tuples, and only those, have equal bytes.
func encodeKey(buf []byte, cols []*vector.Vector, i int) []byte {
	for _, c := range cols {
		if c.IsNull(i) {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, byte(c.Type)+1)
		switch c.Type {
		case vector.Bool:
			if c.Bool(i) {
				buf = append(buf, 1)
			} else {
				buf = append(buf, 0)
			}
		case vector.Int, vector.DateTime, vector.TimeSpan:
			buf = binary.LittleEndian.AppendUint64(buf, uint64(c.Int(i)))
		case vector.Float:
			f := c.Float(i)
			if f == 0 {
				f = 0 // fold -0 into 0
			}
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
		case vector.String:
			s := c.Str(i)
			buf = binary.AppendUvarint(buf, uint64(len(s)))
			buf = append(buf, s...)
		default:
			// A number's text is shorter than 128 bytes: its uvarint
			// length is one byte, written once the text is.
			at := len(buf)
			if b, ok := appendMixedKey(append(buf, 0), c, i); ok {
				b[at] = byte(len(b) - at - 1)
				buf = b
				continue
			}
			buf = buf[:at]
			s := ValueString(c.Value(i))
			buf = binary.AppendUvarint(buf, uint64(len(s)))
			buf = append(buf, s...)
		}
	}
	return buf
}

// mergeInto maps every group of other into g (adding missing ones) and
// returns the mapping from other's ids to g's.
func (g *groupTable) mergeInto(other *groupTable) []uint32 {
	into := make([]uint32, other.N)
	if g.intern != nil && other.intern == g.intern {
		for gr := 0; gr < other.N; gr++ {
			if gr < len(other.gid) && other.gid[gr] != noID {
				into[gr] = g.internedGroup(other.keys, gr, other.gid[gr])
			} else {
				into[gr] = g.nullGroup(other.keys, gr)
			}
		}
		return into
	}
	if len(g.types) == 0 {
		if g.N == 0 && other.N > 0 {
			g.N = 1
		}
		return into
	}
	g.assign(other.keyCols(), nil, other.N, into)
	return into
}

// assignInterned groups a string key through the query's interner:
// string → interned id → group id. A dictionary column is interned once
// per dictionary, so its rows need only array lookups; a plain column
// interns row by row.
func (g *groupTable) assignInterned(cols []*vector.Vector, c *vector.Vector, rows []int32, out []uint32) {
	var ids []uint32
	if c.Codes != nil && !c.Const && len(c.Dict) > 0 {
		ids = g.intern.Dict(c.Dict)
		if c.Valid == nil {
			// No nulls: code → interned id → group, array lookups only.
			byID := g.byID
			for k := range out {
				i := row(rows, k)
				id := ids[c.Codes[i]]
				if int(id) < len(byID) && byID[id] != 0 {
					out[k] = uint32(byID[id] - 1)
					continue
				}
				out[k] = g.internedGroup(cols, i, id)
				byID = g.byID
			}
			return
		}
	}
	var memo *strMemo
	if ids == nil {
		memo = new(strMemo)
	}
	for k := range out {
		i := row(rows, k)
		if c.IsNull(i) {
			out[k] = g.nullGroup(cols, i)
			continue
		}
		var id uint32
		if ids != nil {
			id = ids[c.Codes[i]]
		} else {
			id = memo.id(g.intern, c.Str(i))
		}
		out[k] = g.internedGroup(cols, i, id)
	}
}

// internedGroup returns the group of interned id, creating it from row i.
func (g *groupTable) internedGroup(cols []*vector.Vector, i int, id uint32) uint32 {
	if int(id) >= len(g.byID) {
		g.byID = append(g.byID, make([]int32, int(id)+1-len(g.byID)+len(g.byID)/2)...)
	}
	gr := g.byID[id]
	if gr == 0 {
		gr = int32(g.newInternedGroup(cols, i, id)) + 1
		g.byID[id] = gr
		for len(g.gid) < int(gr-1) {
			g.gid = append(g.gid, noID)
		}
		g.gid = append(g.gid, id)
	}
	return uint32(gr - 1)
}

// newInternedGroup records a new group of one string key whose interned
// id is id (internedGroup records it in gid). Its key is not appended
// yet: every scan worker makes every group, and the key of each is
// needed only once the workers' tables are merged into one, so keyCols
// appends the interner's own copies then. Copying each key's bytes when
// the group was made, and later appending the copy, was most of the cost
// of a summarize by a URL column.
func (g *groupTable) newInternedGroup(cols []*vector.Vector, i int, id uint32) uint32 {
	s, ok := g.intern.Str(id)
	if !ok {
		return g.newGroup(cols, i) // no copy to point at later: copy now
	}
	g.held += int64(len(s)) // the interner's copy lives while the query runs
	g.N++
	return uint32(g.N - 1)
}

// keyCols returns the key columns with every group's key in place.
// Outside this file, the keys are read only through it.
func (g *groupTable) keyCols() []*vector.Vector {
	g.materialize()
	return g.keys
}

// materialize appends the keys of the interned groups made since the
// last call: each has an id in gid whose interner copy exists
// (newInternedGroup made the others with newGroup, which calls this
// first, so they are never pending).
func (g *groupTable) materialize() {
	if g.intern == nil || len(g.keys) != 1 {
		return
	}
	v := g.keys[0]
	for gr := v.Len; gr < g.N; gr++ {
		s, _ := g.intern.Str(g.gid[gr])
		v.AppendStr(s)
	}
}

// noID marks a group without an interned id (the null group).
const noID = ^uint32(0)
