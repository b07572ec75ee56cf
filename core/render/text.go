package render

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	segjson "github.com/segmentio/encoding/json"

	"github.com/aplite/aplite/core/output"
)

// This file holds the text formats of a result, for readers that are not
// API clients: an aligned table for people, CSV, NDJSON and an array of
// row objects for scripts (jq, DuckDB), and the tabular JSON answer as
// one document. ../shared/spec/cli.md fixes their bytes.

// ErrUnknownFormat is returned by Write for a format it does not know.
var ErrUnknownFormat = errors.New("unknown format")

// Write writes o in format: "table" (or ""), "json", "rows", "ndjson" or
// "csv". A table shows at most limit rows (0: all) and returns how many
// it left out; the other formats write every row and return 0.
func Write(w io.Writer, format string, o *output.Output, limit int) (more int, err error) {
	switch format {
	case "json":
		return 0, JSON(w, o)
	case "rows":
		return 0, Rows(w, o)
	case "ndjson":
		return 0, NDJSON(w, o)
	case "csv":
		return 0, CSV(w, o)
	case "table", "":
		return Table(w, o, limit)
	}
	return 0, fmt.Errorf("%w %q", ErrUnknownFormat, format)
}

// JSON writes the tabular answer (Tabular) as one line of JSON.
// segmentio's encoder: 1.2-1.3x encoding/json on a 50k-row log result,
// same bytes (README, "Why ingest decodes JSON itself").
func JSON(w io.Writer, o *output.Output) error {
	return segjson.NewEncoder(w).Encode(Tabular(o))
}

// Rows writes a JSON array of row objects, one row a line; no rows at
// all is "[]".
func Rows(w io.Writer, o *output.Output) error { return writeRows(w, o, "[", ",\n", "]\n") }

// NDJSON writes one JSON object a line per row; no rows at all is
// nothing.
func NDJSON(w io.Writer, o *output.Output) error { return writeRows(w, o, "", "\n", "\n") }

// writeRows writes each row as a JSON object with the keys in column
// order (a map would sort them), rows separated by sep between open and
// close. It writes a megabyte at a time, so a large result is never one
// buffer.
func writeRows(w io.Writer, o *output.Output, open, sep, close string) error {
	names, _ := o.Columns()
	keys := make([][]byte, len(names))
	for j, n := range names {
		keys[j] = segjson.AppendEscape(nil, n, 0)
	}
	buf := append([]byte(nil), open...)
	var err error
	for i := 0; i < o.NumRows(); i++ {
		if i > 0 {
			buf = append(buf, sep...)
		}
		buf = append(buf, '{')
		for j := range names {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = append(append(buf, keys[j]...), ':')
			if buf, err = segjson.Append(buf, o.Value(i, j), segjson.SortMapKeys); err != nil {
				return fmt.Errorf("row %d, column %s: %w", i+1, names[j], err)
			}
		}
		buf = append(buf, '}')
		if len(buf) > 1<<20 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if o.NumRows() > 0 || open != "" {
		buf = append(buf, close...)
	}
	_, err = w.Write(buf)
	return err
}

// CSV writes a header of column names and a record per row, each cell as
// output.Text renders it (a null is an empty field).
func CSV(w io.Writer, o *output.Output) error {
	names, _ := o.Columns()
	cw := csv.NewWriter(w)
	_ = cw.Write(names)
	rec := make([]string, len(names))
	for i := 0; i < o.NumRows(); i++ {
		for j := range names {
			rec[j] = output.Text(o.Value(i, j))
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// Table aligns the column names and the first limit rows (0: all) in
// columns two spaces apart, and returns how many rows it left out; what
// to tell the reader about them is the caller's (the command line names
// its own flags).
func Table(w io.Writer, o *output.Output, limit int) (more int, err error) {
	names, _ := o.Columns()
	n := o.NumRows()
	if limit > 0 && n > limit {
		n = limit
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(names, "\t"))
	cells := make([]string, len(names))
	for i := 0; i < n; i++ {
		for j := range names {
			cells[j] = output.Text(o.Value(i, j))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return o.NumRows() - n, tw.Flush()
}
