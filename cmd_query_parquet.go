package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/db/parquetfile"
)

// Parquet files (issue 16): `-in name=file.parquet` reads only the
// columns the query can use and skips row groups whose _time statistics
// fall outside -start/-end; `-format parquet` writes a result as Parquet
// (package fileformat/parquet, shared with the browser's offline mode).

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
	pf, err := parquetfile.Open(f, st.Size(), keep)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if skipped := pf.Skipped(); len(skipped) > 0 {
		fmt.Fprintf(os.Stderr, "aplite query: %s: repeated fields not loaded (lists and maps are not supported yet): %s\n",
			path, strings.Join(skipped, ", "))
	}
	if _, err := d.Create(name); err != nil {
		return err
	}
	progress.start(path, &countingReader{total: st.Size()})
	defer progress.done()
	now := time.Now().UnixNano()
	for i := range pf.NumRowGroups() {
		if !pf.InWindow(i, lo, hi) {
			continue
		}
		rows, err := pf.ReadRowGroup(i, now)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		progress.stream.Rows.Add(int64(rows.N))
		decl.retype(rows, path)
		if _, err := d.Append(name, rows); err != nil {
			return err
		}
	}
	return d.Flush(name)
}

// errParquetStdout refuses to write binary to a terminal.
var errParquetStdout = errors.New("-format parquet writes binary: give -o FILE or redirect stdout")
