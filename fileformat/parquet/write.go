package parquet

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"

	"github.com/aplite/aplite/core/output"
)

// RowGroupRows is the rows per written row group: small enough that
// _time statistics let a later query skip most of a long file, and that
// the browser holds one row group's bytes at a time.
const RowGroupRows = 64 << 10

// DictionaryMaxBytes bounds the dictionary of a string column chunk:
// past it the writer goes on with plain pages, should a column that
// repeated its values in the first rows (encodings) stop doing so.
const DictionaryMaxBytes = 1 << 20

// Write writes a result as Snappy-compressed Parquet, one row group per
// RowGroupRows rows. Snappy, not zstd: reading is what a file is for,
// and over 10M events zstd's decoder was a third of a group-by's CPU;
// with Snappy the queries take 10-20% less CPU for a file 17% larger
// (bench/README.md).
func Write(w io.Writer, res *output.Output) error {
	names, types := res.Columns()
	pw, err := NewWriter(w, names, types)
	if err != nil {
		return err
	}
	if err := pw.Write(res); err != nil {
		return err
	}
	return pw.Close()
}

// Writer writes several results with the same columns into one Parquet
// file, one after the other: `aplite query` exports a file read chunk by
// chunk this way, holding one chunk's result at a time instead of the
// whole file's.
type Writer struct {
	w      io.Writer
	pw     *pq.GenericWriter[any] // made by the first Write, which picks the encodings
	names  []string
	types  []string
	order  []int // order[j] is the leaf of column j
	rows   []pq.Row
	closed bool
}

// NewWriter starts a file whose columns are names, of the APL result
// types (API names) types.
func NewWriter(w io.Writer, names, types []string) (*Writer, error) {
	schema := newSchema(names, types, nil)
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
			return nil, fmt.Errorf("parquet: no column for %q", n)
		}
		order[i] = idx
	}
	return &Writer{w: w, names: names, types: types, order: order, rows: make([]pq.Row, 0, 1024)}, nil
}

// newSchema is the file's schema; dict[j] dictionary-encodes column j.
func newSchema(names, types []string, dict []bool) *pq.Schema {
	group := pq.Group{}
	for i, n := range names {
		nd := node(types[i])
		if i < len(dict) && dict[i] {
			nd = pq.Encoded(nd, &pq.RLEDictionary)
		}
		group[n] = pq.Optional(nd)
	}
	return pq.NewSchema("aplite", group)
}

// start makes the Parquet writer, with the encodings first's rows call for.
func (w *Writer) start(first *output.Output) {
	w.pw = pq.NewGenericWriter[any](w.w, newSchema(w.names, w.types, encodings(first, w.types)),
		pq.Compression(&snappy.Codec{}), pq.MaxRowsPerRowGroup(RowGroupRows),
		pq.DictionaryMaxBytes(DictionaryMaxBytes))
}

// sampleRows is how many of the first rows encodings looks at.
const sampleRows = 8192

// encodings says which string columns to dictionary-encode: those whose
// first rows repeat their values, on average twice or more, or are null. Log fields
// mostly do (a method, a URI, a city), and the reader takes such a chunk
// as codes (dict.go), not a string a row. A column of unique values (ids,
// messages) stays plain: a dictionary would hold a copy of its whole row
// group, and a hash table over it, in the writer until the group is
// flushed, for no gain in size or in reading.
func encodings(res *output.Output, types []string) []bool {
	n := min(res.NumRows(), sampleRows)
	dict := make([]bool, len(types))
	for j, t := range types {
		if node(t).Type().Kind() != pq.ByteArray {
			continue
		}
		seen := map[string]struct{}{}
		set := 0
		for r := range n {
			switch v := res.Value(r, j).(type) {
			case nil:
			case string:
				seen[v] = struct{}{}
				set++
			default: // a dynamic cell, written as its JSON text
				seen[fmt.Sprint(v)] = struct{}{}
				set++
			}
		}
		// A column null so far says nothing of its values: it may be a
		// field later events set, and DictionaryMaxBytes bounds the cost.
		dict[j] = 2*len(seen) <= set
	}
	return dict
}

// Write appends the rows of res, whose columns must be the writer's.
func (w *Writer) Write(res *output.Output) error {
	names, types := res.Columns()
	if !slices.Equal(names, w.names) || !slices.Equal(types, w.types) {
		return fmt.Errorf("parquet: the result's columns %v (%v) are not the file's %v (%v)", names, types, w.names, w.types)
	}
	if w.pw == nil {
		w.start(res)
	}
	for r := 0; r < res.NumRows(); r++ {
		row := make(pq.Row, len(names))
		for j := range names {
			v := res.Value(r, j)
			row[w.order[j]] = value(v, types[j]).Level(0, defLevel(v), w.order[j])
		}
		w.rows = append(w.rows, row)
		if len(w.rows) == cap(w.rows) {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *Writer) flush() error {
	if _, err := w.pw.WriteRows(w.rows); err != nil {
		return err
	}
	w.rows = w.rows[:0]
	return nil
}

// Close writes the last rows and the footer.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.pw == nil {
		w.start(&output.Output{})
	}
	if err := w.flush(); err != nil {
		return err
	}
	return w.pw.Close()
}

func defLevel(v any) int {
	if v == nil {
		return 0
	}
	return 1
}

// node maps an APL result type (its API name) to a Parquet type.
func node(t string) pq.Node {
	switch t {
	case "integer", "long", "int":
		return pq.Int(64)
	case "float", "real", "double":
		return pq.Leaf(pq.DoubleType)
	case "boolean", "bool":
		return pq.Leaf(pq.BooleanType)
	case "datetime":
		return pq.Timestamp(pq.Nanosecond)
	}
	return pq.String() // strings, timespans (as text), dynamic values (as JSON)
}

// value converts a result cell to the Parquet type node(t) chose. A
// string column takes any cell as text: a dynamic column (a field whose
// type changes from event to event) mixes numbers, strings and objects,
// and a number handed to a byte-array column crashes the writer.
func value(v any, t string) pq.Value {
	if v == nil {
		return pq.NullValue()
	}
	switch node(t).Type().Kind() {
	case pq.Int64:
		switch x := v.(type) {
		case int64:
			return pq.ValueOf(x)
		case int:
			return pq.ValueOf(int64(x))
		case float64:
			return pq.ValueOf(int64(x))
		case string: // a datetime
			if tm, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return pq.ValueOf(tm.UnixNano())
			}
		}
	case pq.Double:
		switch x := v.(type) {
		case float64:
			return pq.ValueOf(x)
		case int64:
			return pq.ValueOf(float64(x))
		}
	case pq.Boolean:
		if x, ok := v.(bool); ok {
			return pq.ValueOf(x)
		}
	default:
		if x, ok := v.(string); ok {
			return pq.ValueOf(x)
		}
		b, _ := json.Marshal(v)
		return pq.ValueOf(string(b))
	}
	return pq.NullValue() // a cell the column's type cannot hold
}
