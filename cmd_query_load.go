package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/aplite/aplite/db"
)

// Loading files for `aplite query -in` (issue 16, first part), for the
// queries that do not read the files in place (cmd_query_stream.go) and
// with -load. A file is
// read as a stream: NDJSON in chunks of whole lines decoded in parallel
// (one worker per core), straight into an in-memory dataset that seals
// every 65,536 rows into compressed blocks, so memory follows the
// compressed size of the columns kept, not the file. Only the fields the
// query can read are kept (queryFields); gzip and zstd files (.gz, .zst)
// are decompressed on the fly. On a terminal, progress goes to stderr.

// fileFormat picks the decoder and decompressor from the file name.
func fileFormat(path string) (db.Format, string, error) {
	name := strings.ToLower(path)
	comp := ""
	for _, c := range []string{".gz", ".zst"} {
		if strings.HasSuffix(name, c) {
			comp, name = c, strings.TrimSuffix(name, c)
		}
	}
	switch filepath.Ext(name) {
	case ".json":
		return db.JSON, comp, nil
	case ".ndjson", ".jsonl":
		return db.NDJSON, comp, nil
	case ".csv":
		return db.CSV, comp, nil
	}
	return 0, "", errors.New("unknown file type: use .parquet, or .json, .ndjson, .jsonl or .csv, optionally with .gz or .zst")
}

// openFile returns the file's decompressed stream and its size on disk.
func openFile(path, comp string) (io.Reader, func(), *countingReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	st, _ := f.Stat()
	cr := &countingReader{r: bufio.NewReaderSize(f, 1<<20), total: st.Size()}
	closers := []func(){func() { f.Close() }}
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	var r io.Reader = cr
	switch comp {
	case ".gz":
		zr, err := gzip.NewReader(cr)
		if err != nil {
			closeAll()
			return nil, nil, nil, fmt.Errorf("gzip: %w", err)
		}
		r = zr
	case ".zst":
		zr, err := zstd.NewReader(cr)
		if err != nil {
			closeAll()
			return nil, nil, nil, fmt.Errorf("zstd: %w", err)
		}
		closers = append(closers, zr.Close)
		r = zr
	}
	return r, closeAll, cr, nil
}

// countingReader counts the bytes read from the file, for progress.
type countingReader struct {
	r     io.Reader
	n     atomic.Int64
	total int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// loadStream decodes path into a new dataset of d, keeping the fields
// keep accepts (nil: all), with the dataset's declared map fields and
// types. NDJSON streams in chunks decoded on every core (db.IngestStream);
// failed events are reported, not fatal, as the server's ingest does.
func loadStream(d *db.DB, name, path string, decl *fieldDecl, keep func(string) bool, enough func() bool, lo, hi time.Time, progress *loadProgress) error {
	if strings.HasSuffix(strings.ToLower(path), ".parquet") {
		return loadParquet(d, name, path, decl, keep, lo, hi, progress)
	}
	format, comp, err := fileFormat(path)
	if err != nil {
		return err
	}
	r, closeFile, cr, err := openFile(path, comp)
	if err != nil {
		return err
	}
	defer closeFile()
	progress.start(path, cr)
	defer progress.done()
	if _, err := d.Create(name); err != nil {
		return err
	}
	opts := db.StreamOptions{Options: db.IngestOptions{Format: format, Keep: keep}, Progress: &progress.stream, Enough: enough}
	if decl != nil {
		opts.MapFields = decl.mapFields
		opts.Prepare = func(rows *db.Rows) { decl.retype(rows, path) }
	}
	res, err := d.IngestStream(name, r, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if res.Failed > 0 {
		fmt.Fprintf(os.Stderr, "aplite query: %s: %d events failed, first: %s\n", path, res.Failed, res.Failures[0].Error)
	}
	return nil
}

// takeEnough returns, for a query that takes N rows of dataset name
// through row-by-row operators (db.Inspection's Take), a test that the
// rows loaded so far already give N answers: any N rows are a right
// answer to take, so the rest of the file need not be read. It returns
// nil for every other query.
func takeEnough(apl, name string, d *db.DB, req db.Request) func() bool {
	q, err := db.Inspect(apl)
	if err != nil {
		return nil
	}
	n, ok := q.Take(name)
	if !ok {
		return nil
	}
	return func() bool {
		r := req
		r.DisableCache = true
		res, err := d.Query(context.Background(), &r)
		return err == nil && int64(res.NumRows()) >= n
	}
}

// queryFields returns the fields a query can read, as a Keep function for
// the decoders, or nil when it may read any field (db.QueryReads).
func queryFields(apl string) func(string) bool {
	r, err := db.QueryReads(apl)
	if err != nil {
		return nil // the engine reports the error
	}
	return r.Keep
}

// loadProgress prints bytes read, rows and elapsed time on stderr while
// files load, when stderr is a terminal.
type loadProgress struct {
	on     bool
	stream db.StreamProgress
	status statusLine
}

func newLoadProgress() *loadProgress {
	return &loadProgress{on: stderrIsTerminal(), status: statusLine{w: os.Stderr, every: 200 * time.Millisecond}}
}

func (p *loadProgress) start(path string, cr *countingReader) {
	if !p.on {
		return
	}
	began := time.Now()
	p.status.start(func() string {
		return fmt.Sprintf("%s: %s of %s, %d rows, %.1fs", filepath.Base(path),
			mib(cr.n.Load()), mib(cr.total), p.stream.Rows.Load(), time.Since(began).Seconds())
	})
}

func (p *loadProgress) done() { p.status.done() }

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
