package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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

// writeResult prints a result in the chosen format (core/render writes
// the text ones); a table shows at most limit rows (0: all) and then says
// how many it left out and how to see them.
func writeResult(w io.Writer, format string, res *db.Output, limit int) error {
	if format == "parquet" {
		return parquetfile.Write(w, res)
	}
	more, err := db.WriteText(w, format, res, limit)
	if errors.Is(err, db.ErrUnknownFormat) {
		return fmt.Errorf("unknown -format %q (%s)", format, formats)
	}
	if err != nil || more == 0 {
		return err
	}
	_, err = fmt.Fprintf(w, "… %s more rows (%s in all); pipe the output, or use -format csv, -o FILE or | take N to see them\n",
		thousands(more), thousands(res.NumRows()))
	return err
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
