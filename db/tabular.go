package db

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// savedResult is the part of a tabular query result that Load reads.
type savedResult struct {
	Tables []savedTable `json:"tables"`
}

type savedTable struct {
	Name   string `json:"name"`
	Fields []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"fields"`
	Columns [][]json.RawMessage `json:"columns"`
}

// DecodeTabular reads a saved tabular query result (TabularResult as
// JSON) into rows without storing them, as Decode reads an ingest body:
// the console loads a result saved from the API or from itself, and it
// answers queries as its source would. now is the rows' _sysTime and the
// ingest time; zero means the clock.
func DecodeTabular(data []byte, now int64) (*store.Rows, IngestResult, error) {
	if now == 0 {
		now = time.Now().UnixNano()
	}
	rows, res, err := build(now, func(b *store.RowsBuilder) (ingest.Result, error) {
		n, err := tabularRows(data, now, b)
		return ingest.Result{Ingested: n, ProcessedBytes: int64(len(data))}, err
	})
	return rows, IngestResult{Result: res}, err
}

// tabularRows adds the rows of a saved tabular result's first table
// (skipping the _totals table of time-binned results) to b, one event per
// row, keeping each column's type: a result saved from the API and loaded
// here answers queries as its source would. _time becomes the event time
// (the bin start for time-binned results); _sysTime is set anew.
func tabularRows(data []byte, now int64, b *store.RowsBuilder) (int, error) {
	var res savedResult
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&res); err != nil {
		return 0, fmt.Errorf("cannot read the tabular result: %w", err)
	}
	for _, t := range res.Tables {
		if t.Name != "_totals" {
			return addTable(&t, now, b)
		}
	}
	return 0, errors.New("the tabular result has no table")
}

func addTable(t *savedTable, now int64, b *store.RowsBuilder) (int, error) {
	if len(t.Columns) != len(t.Fields) {
		return 0, fmt.Errorf("table %q has %d fields but %d columns", t.Name, len(t.Fields), len(t.Columns))
	}
	n := 0
	for i, c := range t.Columns {
		if i > 0 && len(c) != n {
			return 0, fmt.Errorf("table %q: column %q has %d values, column %q has %d",
				t.Name, t.Fields[i].Name, len(c), t.Fields[0].Name, n)
		}
		n = len(c)
	}
	for row := range n {
		b.Begin()
		for i, f := range t.Fields {
			if err := setCell(b, f.Name, f.Type, t.Columns[i][row]); err != nil {
				b.Abort()
				return 0, fmt.Errorf("table %q row %d: %w", t.Name, row, err)
			}
		}
		b.End(now)
	}
	return n, nil
}

// setCell stores one value under the column type its field declares. A
// value that does not fit the declared type (a composite "integer|float"
// field, say) is stored as the JSON value it is.
func setCell(b *store.RowsBuilder, name, typ string, raw json.RawMessage) error {
	if name == "_sysTime" || len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("field %q: %w", name, err)
	}
	if name == "_time" {
		ns, ok := parseTime(v)
		if !ok {
			return fmt.Errorf("_time %s is not a time", raw)
		}
		b.SetTime(ns)
		return nil
	}
	if setTyped(b, name, typ, v) {
		return nil
	}
	setJSON(b, name, v)
	return nil
}

// setTyped stores v as typ; false when v is not a value of that type.
func setTyped(b *store.RowsBuilder, name, typ string, v any) bool {
	switch typ {
	case "datetime":
		if ns, ok := parseTime(v); ok {
			b.SetIntAt(b.Ref(store.ColKey{Name: name, Type: vector.DateTime}), ns)
			return true
		}
	case "timespan":
		if s, ok := v.(string); ok {
			if d, err := time.ParseDuration(s); err == nil {
				b.SetIntAt(b.Ref(store.ColKey{Name: name, Type: vector.TimeSpan}), int64(d))
				return true
			}
		}
	case "integer":
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				b.SetInt(name, i)
				return true
			}
		}
	case "float":
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				b.SetFloat(name, f)
				return true
			}
		}
	case "string":
		if s, ok := v.(string); ok {
			b.SetString(name, s)
			return true
		}
	case "boolean":
		if x, ok := v.(bool); ok {
			b.SetBool(name, x)
			return true
		}
	}
	return false
}

// setJSON stores a value whose type the field did not say, the way ingest
// types JSON values.
func setJSON(b *store.RowsBuilder, name string, v any) {
	switch x := v.(type) {
	case string:
		b.SetString(name, x)
	case bool:
		b.SetBool(name, x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			b.SetInt(name, i)
		} else if f, err := x.Float64(); err == nil {
			b.SetFloat(name, f)
		}
	default:
		b.SetDynamic(name, plain(v))
	}
}

// plain converts json.Numbers inside objects and arrays into int64 or
// float64, the values dynamic columns hold.
func plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		if math.IsInf(f, 0) {
			return nil
		}
		return f
	case []any:
		for i := range x {
			x[i] = plain(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = plain(x[k])
		}
	}
	return v
}

// parseTime reads an RFC 3339 time string into ns since the epoch.
func parseTime(v any) (int64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || t.Before(minTime) || t.After(maxTime) {
		return 0, false // not a time a datetime holds: kept as the text
	}
	return t.UnixNano(), true
}

// minTime and maxTime bound the times int64 nanoseconds hold.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)
