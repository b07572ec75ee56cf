package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"

	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/vector"
)

// Parquet files (issue 16): `-in name=file.parquet` reads only the
// columns the query can use and skips row groups whose _time statistics
// fall outside -start/-end; `-format parquet` writes a result as Parquet.
// Flat schemas and nested groups (read as dotted field names) are
// supported; repeated fields (lists, maps) are reported and left out.

// parquetLeaf is one leaf column the load reads.
type parquetLeaf struct {
	col  *parquet.Column
	name string
	unit time.Duration // timestamps: the unit of the stored integer; 0 otherwise
	date bool          // DATE: days since the epoch
}

// loadParquet appends the file's rows to a new dataset of db.
func loadParquet(d *db.DB, name, path string, decl *fieldDecl, keep func(string) bool, lo, hi time.Time, progress *loadProgress) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: not a Parquet file: %w", path, err)
	}
	leaves, skipped := parquetLeaves(pf.Root(), keep)
	if len(skipped) > 0 {
		fmt.Fprintf(os.Stderr, "aplite query: %s: repeated fields not loaded (lists and maps are not supported yet): %s\n",
			path, strings.Join(skipped, ", "))
	}
	ds, err := d.Create(name)
	if err != nil {
		return err
	}
	progress.start(path, &countingReader{total: st.Size()})
	defer progress.done()
	now := time.Now().UnixNano()
	for i, rg := range pf.RowGroups() {
		if !rowGroupInWindow(pf, i, leaves, lo, hi) {
			continue
		}
		rows, err := readRowGroup(rg, leaves, now)
		if err != nil {
			return fmt.Errorf("%s: row group %d: %w", path, i, err)
		}
		progress.stream.Rows.Add(int64(rows.N))
		decl.retype(rows, path)
		if _, err := ds.Append(rows); err != nil {
			return err
		}
	}
	return ds.Flush()
}

// parquetLeaves lists the leaf columns to read, with dotted names.
func parquetLeaves(root *parquet.Column, keep func(string) bool) (out []parquetLeaf, skipped []string) {
	var walk func(c *parquet.Column)
	walk = func(c *parquet.Column) {
		if !c.Leaf() {
			for _, ch := range c.Columns() {
				walk(ch)
			}
			return
		}
		name := strings.Join(c.Path(), ".")
		if c.MaxRepetitionLevel() > 0 {
			skipped = append(skipped, name)
			return
		}
		if name == store.SysTimeField { // the loading store sets its own
			return
		}
		if keep != nil && name != store.TimeField && !keep(name) {
			return
		}
		l := parquetLeaf{col: c, name: name}
		if lt := c.Type().LogicalType(); lt != nil {
			switch v := lt.Value.(type) {
			case *format.TimestampType:
				if d, ok := v.Unit.Value.(interface{ Duration() time.Duration }); ok {
					l.unit = d.Duration()
				}
			case *format.DateType:
				l.date = true
			}
		}
		out = append(out, l)
	}
	walk(root)
	return out, skipped
}

// rowGroupInWindow uses the _time column's statistics to skip a row group
// wholly outside [lo, hi).
func rowGroupInWindow(pf *parquet.File, i int, leaves []parquetLeaf, lo, hi time.Time) bool {
	if lo.IsZero() && hi.IsZero() {
		return true
	}
	for _, l := range leaves {
		if l.name != store.TimeField || l.unit == 0 {
			continue
		}
		cols := pf.Metadata().RowGroups[i].Columns
		ci := l.col.Index()
		if ci < 0 || ci >= len(cols) {
			return true
		}
		st := cols[ci].MetaData.Statistics
		mn, mx := st.MinValue, st.MaxValue
		if len(mn) != 8 || len(mx) != 8 {
			return true
		}
		minT := int64(binary.LittleEndian.Uint64(mn)) * int64(l.unit)
		maxT := int64(binary.LittleEndian.Uint64(mx)) * int64(l.unit)
		if !lo.IsZero() && maxT < lo.UnixNano() || !hi.IsZero() && minT >= hi.UnixNano() {
			return false
		}
	}
	return true
}

// readRowGroup reads the leaves of one row group into rows, a column at a
// time and a page at a time: values are converted as each page is read,
// so only one page of parquet.Values is held, never the row group's. A
// leaf with no value in the row group adds no column, and events without
// a _time take now, as when events are decoded one by one.
func readRowGroup(rg parquet.RowGroup, leaves []parquetLeaf, now int64) (*store.Rows, error) {
	n := int(rg.NumRows())
	rows := &store.Rows{N: n, SysTime: now, Time: make([]int64, n)}
	for i := range rows.Time {
		rows.Time[i] = now
	}
	chunks := rg.ColumnChunks()
	buf := make([]parquet.Value, 4096)
	for _, l := range leaves {
		col := &leafColumn{l: l, rows: rows}
		if l.name != store.TimeField {
			col.v = vector.New(leafType(l), n)
		}
		if err := readLeaf(chunks[l.col.Index()], buf, col.add); err != nil {
			return nil, fmt.Errorf("column %s: %w", l.name, err)
		}
		if col.at != n {
			return nil, fmt.Errorf("column %s: %d values for %d rows", l.name, col.at, n)
		}
		if col.v != nil && col.set > 0 {
			rows.Keys = append(rows.Keys, store.ColKey{Name: l.name, Type: col.v.Type})
			rows.Cols = append(rows.Cols, col.v)
		}
	}
	return rows, nil
}

// readLeaf hands every value of a column chunk, nulls included, to add.
func readLeaf(cc parquet.ColumnChunk, buf []parquet.Value, add func(parquet.Value)) error {
	pages := cc.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		vals := p.Values()
		for {
			k, err := vals.ReadValues(buf)
			for _, v := range buf[:k] {
				add(v)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				parquet.Release(p)
				return err
			}
		}
		parquet.Release(p)
	}
}

// leafColumn converts one leaf's values into its column (or the rows'
// times) as they are read.
type leafColumn struct {
	l    parquetLeaf
	rows *store.Rows
	v    *vector.Vector
	at   int // rows read
	set  int // values not null
}

func (c *leafColumn) add(v parquet.Value) {
	row := c.at
	c.at++
	if row >= c.rows.N {
		return // too many values: readRowGroup reports it
	}
	if v.IsNull() {
		if c.v != nil {
			c.v.AppendNull()
		}
		return
	}
	l := c.l
	var ns int64
	isTime := l.unit != 0 || l.date
	if isTime {
		if v.Kind() == parquet.Int32 {
			ns = int64(v.Int32())
		} else {
			ns = v.Int64()
		}
		if l.date {
			ns *= int64(24 * time.Hour)
		} else {
			ns *= int64(l.unit)
		}
	}
	if c.v == nil { // the _time leaf
		switch {
		case isTime:
			c.rows.Time[row] = ns
		case v.Kind() == parquet.ByteArray:
			if t, err := time.Parse(time.RFC3339Nano, string(v.ByteArray())); err == nil {
				c.rows.Time[row] = t.UnixNano()
			}
		}
		return
	}
	c.set++
	switch {
	case isTime:
		c.v.AppendInt(ns)
	case v.Kind() == parquet.Boolean:
		c.v.AppendBool(v.Boolean())
	case v.Kind() == parquet.Int32:
		c.v.AppendInt(int64(v.Int32()))
	case v.Kind() == parquet.Int64:
		c.v.AppendInt(v.Int64())
	case v.Kind() == parquet.Float:
		c.v.AppendFloat(float64(v.Float()))
	case v.Kind() == parquet.Double:
		c.v.AppendFloat(v.Double())
	default:
		c.v.AppendStr(string(v.ByteArray()))
	}
}

// parquetRowGroup is the rows per written row group: small enough that
// _time statistics let a later query skip most of a long file.
const parquetRowGroup = 64 << 10

// writeParquet writes a result as zstd-compressed Parquet, one row group
// per 64Ki rows.
func writeParquet(w io.Writer, res *output.Output) error {
	names, types := res.Columns()
	group := parquet.Group{}
	for i, n := range names {
		group[n] = parquet.Optional(parquetNode(types[i]))
	}
	schema := parquet.NewSchema("aplite", group)
	leaf := map[string]int{}
	for i, path := range schema.Columns() {
		leaf[strings.Join(path, ".")] = i
	}
	// Group keys are leaf paths only when they hold no dot; a dotted name
	// is one leaf named with the dot, which Columns reports as one element.
	order := make([]int, len(names))
	for i, n := range names {
		idx, ok := leaf[n]
		if !ok {
			return fmt.Errorf("parquet: no column for %q", n)
		}
		order[i] = idx
	}
	pw := parquet.NewWriter(w, schema, parquet.Compression(&zstd.Codec{}), parquet.MaxRowsPerRowGroup(parquetRowGroup))
	rows := make([]parquet.Row, 0, 1024)
	flush := func() error {
		if _, err := pw.WriteRows(rows); err != nil {
			return err
		}
		rows = rows[:0]
		return nil
	}
	for r := 0; r < res.NumRows(); r++ {
		row := make(parquet.Row, len(names))
		for j := range names {
			row[order[j]] = parquetValue(res.Value(r, j), types[j]).Level(0, defLevel(res.Value(r, j)), order[j])
		}
		rows = append(rows, row)
		if len(rows) == cap(rows) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return pw.Close()
}

func defLevel(v any) int {
	if v == nil {
		return 0
	}
	return 1
}

// parquetNode maps an APL result type (its API name) to a Parquet type.
func parquetNode(t string) parquet.Node {
	switch t {
	case "integer", "long", "int":
		return parquet.Int(64)
	case "float", "real", "double":
		return parquet.Leaf(parquet.DoubleType)
	case "boolean", "bool":
		return parquet.Leaf(parquet.BooleanType)
	case "datetime":
		return parquet.Timestamp(parquet.Nanosecond)
	}
	return parquet.String() // strings, timespans (as text), dynamic values (as JSON)
}

func parquetValue(v any, t string) parquet.Value {
	if v == nil {
		return parquet.NullValue()
	}
	if parquetNode(t).Type().Kind() == parquet.ByteArray && t != "datetime" {
		// A text column (a dynamic one too) takes every value as text: a
		// number in a byte-array column crashed the writer.
		if s, ok := v.(string); ok {
			return parquet.ValueOf(s)
		}
		b, _ := json.Marshal(v)
		return parquet.ValueOf(string(b))
	}
	switch x := v.(type) {
	case string:
		if t == "datetime" {
			if tm, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return parquet.ValueOf(tm.UnixNano())
			}
		}
		return parquet.ValueOf(x)
	case int64:
		if t == "float" || t == "real" {
			return parquet.ValueOf(float64(x))
		}
		return parquet.ValueOf(x)
	case int:
		return parquet.ValueOf(int64(x))
	case float64:
		if t == "integer" || t == "long" {
			return parquet.ValueOf(int64(x))
		}
		return parquet.ValueOf(x)
	case bool:
		return parquet.ValueOf(x)
	}
	b, _ := json.Marshal(v)
	return parquet.ValueOf(string(b))
}

// errParquetStdout refuses to write binary to a terminal.
var errParquetStdout = errors.New("-format parquet writes binary: give -o FILE or redirect stdout")
