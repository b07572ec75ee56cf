package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	segjson "github.com/segmentio/encoding/json"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/db/parquetfile"
)

// formats are the values -format takes. json stays the API's tabular
// envelope (../shared/spec/cli.md fixes it); rows is what a jq or DuckDB
// user expects from JSON output: an array of objects, one per row.
const formats = "table, json, rows, ndjson, csv, parquet"

// terminalRows is how many rows a table printed to a terminal shows: a
// bare dataset name printed 200,000 lines. Pipes and files get every row.
const terminalRows = 100

// writeOutput writes the result to path, or to standard output when path
// is empty (never Parquet to a terminal; a table on a terminal is cut to
// its first terminalRows rows).
func writeOutput(path, format string, res *db.Output) error {
	w := os.Stdout
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := writeResult(f, format, res, 0); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	limit := 0
	if st, err := w.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		if format == "parquet" {
			return errParquetStdout
		}
		limit = terminalRows
	}
	return writeResult(w, format, res, limit)
}

// writeResult prints a result in the chosen format; a table shows at most
// limit rows (0: all) and then says how many it left out.
func writeResult(w io.Writer, format string, res *db.Output, limit int) error {
	switch format {
	case "parquet":
		return parquetfile.Write(w, res)
	case "json":
		// segmentio's encoder: 1.2-1.3x encoding/json on a 50k-row log
		// result, same bytes (README, "Why ingest decodes JSON itself").
		enc := segjson.NewEncoder(w)
		return enc.Encode(db.Tabular(res))
	case "rows":
		return writeRows(w, res, "[", ",\n", "]\n")
	case "ndjson":
		return writeRows(w, res, "", "\n", "\n")
	case "csv":
		return writeCSV(w, res)
	case "table", "":
		return writeTable(w, res, limit)
	}
	return fmt.Errorf("unknown -format %q (%s)", format, formats)
}

// writeRows writes each row as a JSON object with the keys in column
// order (a map would sort them), rows separated by sep between open and
// close; no rows at all is "[]" for rows and nothing for NDJSON.
func writeRows(w io.Writer, res *db.Output, open, sep, close string) error {
	names, _ := res.Columns()
	keys := make([][]byte, len(names))
	for j, n := range names {
		keys[j] = segjson.AppendEscape(nil, n, 0)
	}
	buf := append([]byte(nil), open...)
	var err error
	for i := 0; i < res.NumRows(); i++ {
		if i > 0 {
			buf = append(buf, sep...)
		}
		buf = append(buf, '{')
		for j := range names {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = append(append(buf, keys[j]...), ':')
			if buf, err = segjson.Append(buf, res.Value(i, j), segjson.SortMapKeys); err != nil {
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
	if res.NumRows() > 0 || open != "" {
		buf = append(buf, close...)
	}
	_, err = w.Write(buf)
	return err
}

func writeCSV(w io.Writer, res *db.Output) error {
	names, _ := res.Columns()
	cw := csv.NewWriter(w)
	_ = cw.Write(names)
	for i := 0; i < res.NumRows(); i++ {
		rec := make([]string, len(names))
		for j := range names {
			rec[j] = db.CellText(res.Value(i, j))
		}
		_ = cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// writeTable aligns the first limit rows (0: all) in columns and says how
// many more there are and how to see them.
func writeTable(w io.Writer, res *db.Output, limit int) error {
	names, _ := res.Columns()
	n := res.NumRows()
	if limit > 0 && n > limit {
		n = limit
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(names, "\t"))
	cells := make([]string, len(names))
	for i := 0; i < n; i++ {
		for j := range names {
			cells[j] = db.CellText(res.Value(i, j))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if more := res.NumRows() - n; more > 0 {
		_, err := fmt.Fprintf(w, "… %s more rows (%s in all); pipe the output, or use -format csv, -o FILE or | take N to see them\n",
			thousands(more), thousands(res.NumRows()))
		return err
	}
	return nil
}

// thousands writes n with comma separators: 199,900.
func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
