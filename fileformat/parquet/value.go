package parquet

import (
	"io"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// column decodes one leaf of a row group straight into a vector, a page
// at a time: no row of the group is ever held as parquet.Values, which
// as a whole row group cost the browser more memory than the NDJSON it
// came from.
type column struct {
	l    leaf
	vec  *vector.Vector // nil for _time, which goes to times
	time []int64        // the rows' _time, for the _time leaf
	rows int            // values read, nulls included
	set  int            // values not null
	// strs interns a string column's values within the row group: log
	// fields repeat a few values (a method, a city) thousands of times,
	// and one string each costs an allocation and its bytes.
	strs map[string]string
	// dict is the chunk's dictionary while its pages are read as codes
	// (dict.go); n is the rows of the row group, for sizing.
	dict pq.Dictionary
	n    int
}

// maxInterned bounds strs, so a column of unique values (ids, messages)
// costs a bounded map, not a second copy of every value.
const maxInterned = 4096

func newColumn(l leaf, n int, times []int64) *column {
	c := &column{l: l, n: n}
	if l.name == store.TimeField {
		c.time = times
		return c
	}
	typ := l.vectorType()
	if typ == vector.String {
		// Strs or Codes is sized by the first page, which says which
		// form the chunk is read in.
		c.strs = map[string]string{}
		c.vec = &vector.Vector{Type: typ}
		return c
	}
	c.vec = vector.New(typ, n)
	return c
}

// vectorType is the type a leaf is read as: fixed by its physical and
// logical types, so every value of the leaf has it.
func (l leaf) vectorType() vector.Type {
	switch k := l.col.Type().Kind(); {
	case l.unit != 0 || l.date:
		return vector.DateTime
	case k == pq.Boolean:
		return vector.Bool
	case k == pq.Int32 || k == pq.Int64:
		return vector.Int
	case k == pq.Float || k == pq.Double:
		return vector.Float
	}
	return vector.String
}

// read appends the values of a column chunk, reusing buf between pages
// and returning it for the next column.
func (c *column) read(cc pq.ColumnChunk, buf []pq.Value) ([]pq.Value, error) {
	if cap(buf) == 0 {
		buf = make([]pq.Value, 1024)
	}
	buf = buf[:cap(buf)]
	pages := cc.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		var done bool
		if c.asCodes(p) {
			err = c.codes(p)
		} else if done, err = c.typed(p); !done && err == nil {
			c.plain()
			err = c.page(p.Values(), buf)
		}
		pq.Release(p) // the values' bytes are copied out by now
		if err != nil {
			return buf, err
		}
	}
}

func (c *column) page(r pq.ValueReader, buf []pq.Value) error {
	for {
		k, err := r.ReadValues(buf)
		for _, v := range buf[:k] {
			c.add(v)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// add appends one value.
func (c *column) add(v pq.Value) {
	c.rows++
	if v.IsNull() {
		if c.vec != nil {
			c.vec.AppendNull()
		}
		return
	}
	if c.time != nil {
		if c.rows <= len(c.time) {
			if ns, ok := c.timeOf(v); ok {
				c.time[c.rows-1] = ns
			}
		}
		return
	}
	c.set++
	switch c.vec.Type {
	case vector.DateTime:
		ns, _ := c.timeOf(v)
		c.vec.AppendInt(ns)
	case vector.Bool:
		c.vec.AppendBool(v.Boolean())
	case vector.Int:
		if v.Kind() == pq.Int32 {
			c.vec.AppendInt(int64(v.Int32()))
		} else {
			c.vec.AppendInt(v.Int64())
		}
	case vector.Float:
		if v.Kind() == pq.Float {
			c.vec.AppendFloat(float64(v.Float()))
		} else {
			c.vec.AppendFloat(v.Double())
		}
	default:
		c.vec.AppendStr(c.intern(v.ByteArray()))
	}
}

// timeOf reads a timestamp or date leaf as ns since the epoch, and a
// string _time as RFC 3339.
func (c *column) timeOf(v pq.Value) (int64, bool) {
	if c.l.unit == 0 && !c.l.date {
		if v.Kind() != pq.ByteArray {
			return 0, false
		}
		t, err := time.Parse(time.RFC3339Nano, string(v.ByteArray()))
		return t.UnixNano(), err == nil
	}
	var ns int64
	if v.Kind() == pq.Int32 {
		ns = int64(v.Int32())
	} else {
		ns = v.Int64()
	}
	if c.l.date {
		return ns * int64(24*time.Hour), true
	}
	return ns * int64(c.l.unit), true
}

func (c *column) intern(b []byte) string {
	if s, ok := c.strs[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	if len(c.strs) < maxInterned {
		c.strs[s] = s
	}
	return s
}
