package parquet

import (
	"fmt"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/aplite/aplite/vector"
)

// Number and timestamp pages that are not dictionary-encoded are read
// from the page's decoded array (Page.Data) rather than as one
// parquet.Value a row: the _time column alone, read value by value, was a
// quarter of a query's time once strings came as codes.

// typed appends page p when it is such a page, and reports whether it
// did; the other pages are read value by value (column.add).
func (c *column) typed(p pq.Page) (bool, error) {
	if p.Dictionary() != nil || (c.time != nil && c.l.unit == 0 && !c.l.date) {
		return false, nil
	}
	if c.vec != nil && c.vec.Type != vector.Int && c.vec.Type != vector.DateTime && c.vec.Type != vector.Float {
		return false, nil
	}
	data := p.Data()
	defs := p.DefinitionLevels()
	maxDef := byte(c.l.col.MaxDefinitionLevel())
	switch c.l.col.Type().Kind() {
	case pq.Int32:
		return true, appendNumbers(c, data.Int32(), defs, maxDef)
	case pq.Int64:
		return true, appendNumbers(c, data.Int64(), defs, maxDef)
	case pq.Float:
		return true, appendNumbers(c, data.Float(), defs, maxDef)
	case pq.Double:
		return true, appendNumbers(c, data.Double(), defs, maxDef)
	}
	return false, nil
}

// appendNumbers appends a page's rows: defs are its definition levels
// (nil when the column is required), vals its values, nulls left out.
func appendNumbers[T int32 | int64 | float32 | float64](c *column, vals []T, defs []byte, maxDef byte) error {
	rows := len(vals)
	if defs != nil {
		rows = len(defs)
	}
	if c.rows+rows > c.n {
		return fmt.Errorf("%w: more values than the row group's %d rows", ErrDamaged, c.n)
	}
	j := 0
	for r := range rows {
		if defs != nil && defs[r] != maxDef {
			c.rows++
			if c.vec != nil {
				c.vec.AppendNull()
			}
			continue
		}
		if j >= len(vals) {
			return fmt.Errorf("%w: a page has %d values for more set rows", ErrDamaged, len(vals))
		}
		number(c, vals[j])
		j++
	}
	return nil
}

// number appends one value, as add does for a parquet.Value.
func number[T int32 | int64 | float32 | float64](c *column, v T) {
	c.rows++
	if c.time != nil {
		if c.rows <= len(c.time) {
			c.time[c.rows-1] = c.nanos(int64(v))
		}
		return
	}
	c.set++
	switch c.vec.Type {
	case vector.DateTime:
		c.vec.AppendInt(c.nanos(int64(v)))
	case vector.Int:
		c.vec.AppendInt(int64(v))
	default:
		c.vec.AppendFloat(float64(v))
	}
}

// nanos turns a stored timestamp or date into ns since the epoch.
func (c *column) nanos(v int64) int64 {
	if c.l.date {
		return v * int64(24*time.Hour)
	}
	return v * int64(c.l.unit)
}
