package parquet

import (
	"fmt"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/aplite/aplite/vector"
)

// A string column chunk whose pages are dictionary-encoded is read as
// the vector's dictionary form: its dictionary once into Dict, each
// row's index into Codes. Log fields repeat a few values (a method, a
// URI, a city), so this costs four bytes a row instead of a string and
// a map lookup, and the engine's filters and group-bys then run once per
// distinct value (core/ops_string.go, core/group.go).
//
// Writers fall back to plain pages when a dictionary grows too large, so
// a chunk may start with dictionary pages and go on with plain ones; the
// first plain page turns the codes read so far into strings (plain) and
// the rest of the chunk is read as before.

// asCodes reports whether page p is read as codes: a string column, a
// dictionary-encoded page, and no plain page or other dictionary met
// before it in the chunk.
func (c *column) asCodes(p pq.Page) bool {
	if c.vec == nil || c.vec.Type != vector.String || c.vec.Strs != nil {
		return false
	}
	d := p.Dictionary()
	if d == nil || (c.dict != nil && d != c.dict) {
		return false
	}
	return d.Type().Kind() == pq.ByteArray || d.Type().Kind() == pq.FixedLenByteArray
}

// plain makes the vector hold strings before a page is read value by
// value, turning the codes of earlier dictionary pages into strings.
func (c *column) plain() {
	if c.vec == nil || c.vec.Type != vector.String || c.vec.Strs != nil {
		return
	}
	if c.vec.Codes == nil {
		c.vec.Strs = make([]string, 0, c.n)
		return
	}
	c.vec.Decode()
	c.vec.Strs = append(make([]string, 0, c.n), c.vec.Strs...)
	c.dict = nil
}

// codes appends the rows of the dictionary-encoded page p as codes.
func (c *column) codes(p pq.Page) error {
	if c.dict == nil {
		c.dict = p.Dictionary()
		c.vec.Dict = dictStrings(c.dict)
		// A damaged footer may claim up to maxRowGroupRows rows: size by
		// what our writer cuts, and let a larger group grow by appending.
		c.vec.Codes = make([]uint32, 0, min(c.n, RowGroupRows))
	}
	data := p.Data()
	idx := data.Int32()
	defs := p.DefinitionLevels()
	rows := len(idx)
	if defs != nil {
		rows = len(defs)
	}
	if c.rows+rows > c.n {
		return fmt.Errorf("%w: more values than the row group's %d rows", ErrDamaged, c.n)
	}
	if defs == nil { // a required column: every row has a value
		return c.appendCodes(idx, len(idx))
	}
	maxDef := byte(c.l.col.MaxDefinitionLevel())
	set := 0
	for _, d := range defs {
		if d == maxDef {
			set++
		}
	}
	if set > len(idx) {
		return fmt.Errorf("%w: a dictionary page has %d indexes for %d values", ErrDamaged, len(idx), set)
	}
	if set == len(defs) {
		return c.appendCodes(idx, set)
	}
	v := c.vec
	if len(v.Dict) == 0 { // a null row's code must index something
		v.Dict = append(v.Dict, "")
	}
	if v.Valid == nil { // the rows before this page are all set
		v.Valid = vector.NewBitmapSet(v.Len)
	}
	v.Valid = v.Valid.Grow(v.Len + len(defs))
	j := 0
	for _, d := range defs {
		if d != maxDef {
			v.Valid.Clear(v.Len)
			v.Codes = append(v.Codes, 0)
		} else {
			code := idx[j]
			j++
			if code < 0 || int(code) >= len(v.Dict) {
				return errIndex(code, len(v.Dict))
			}
			v.Valid.Set(v.Len)
			v.Codes = append(v.Codes, uint32(code))
		}
		v.Len++
	}
	c.rows += len(defs)
	c.set += set
	return nil
}

// appendCodes appends n rows, all set, whose indexes are idx[:n].
func (c *column) appendCodes(idx []int32, n int) error {
	v := c.vec
	for _, code := range idx[:n] {
		if code < 0 || int(code) >= len(v.Dict) {
			return errIndex(code, len(v.Dict))
		}
		v.Codes = append(v.Codes, uint32(code))
	}
	if v.Valid != nil {
		v.Valid = v.Valid.Grow(v.Len + n)
		for r := v.Len; r < v.Len+n; r++ {
			v.Valid.Set(r)
		}
	}
	v.Len += n
	c.rows += n
	c.set += n
	return nil
}

func errIndex(code int32, n int) error {
	return fmt.Errorf("%w: dictionary index %d of a dictionary of %d values", ErrDamaged, code, n)
}

// dictStrings copies a dictionary's values out of parquet-go's buffers,
// which are reused once the chunk is read, into one string they all
// slice: one allocation for the bytes however many values.
func dictStrings(d pq.Dictionary) []string {
	n := d.Len()
	var b strings.Builder
	b.Grow(int(d.Size()))
	ends := make([]int, n)
	for i := range n {
		b.Write(d.Index(int32(i)).ByteArray())
		ends[i] = b.Len()
	}
	all := b.String()
	out := make([]string, n)
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	return out
}
