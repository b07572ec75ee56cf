package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/parser"
)

// Loading files for `aplite query -in` (issue 16, first part). A file is
// read as a stream: NDJSON in chunks of whole lines decoded in parallel
// (one worker per core), straight into an in-memory dataset that seals
// every 65,536 rows into compressed blocks, so memory follows the
// compressed size of the columns kept, not the file. Only the fields the
// query can read are kept (queryFields); gzip and zstd files (.gz, .zst)
// are decompressed on the fly. On a terminal, progress goes to stderr.

// loadChunk is the NDJSON chunk size: big enough to amortise a decode
// call, small enough that a worker's rows stay a few tens of MB.
const loadChunk = 8 << 20

// fileFormat picks the decoder and decompressor from the file name.
func fileFormat(path string) (ingest.Format, string, error) {
	name := strings.ToLower(path)
	comp := ""
	for _, c := range []string{".gz", ".zst"} {
		if strings.HasSuffix(name, c) {
			comp, name = c, strings.TrimSuffix(name, c)
		}
	}
	switch filepath.Ext(name) {
	case ".json":
		return ingest.JSON, comp, nil
	case ".ndjson", ".jsonl":
		return ingest.NDJSON, comp, nil
	case ".csv":
		return ingest.CSV, comp, nil
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

// loadStream decodes path into a new dataset of db, keeping the fields
// keep accepts (nil: all).
func loadStream(db *store.DB, name, path string, decl *fieldDecl, keep func(string) bool, lo, hi time.Time, progress *loadProgress) error {
	if strings.HasSuffix(strings.ToLower(path), ".parquet") {
		return loadParquet(db, name, path, decl, keep, lo, hi, progress)
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
	ds, err := db.Create(name)
	if err != nil {
		return err
	}
	now := time.Now().UnixNano()
	opts := ingest.Options{Format: format, Now: now, Keep: keep}
	if decl != nil && len(decl.mapFields) > 0 {
		opts.MapFields = decl.mapFields
	}
	if format != ingest.NDJSON { // one document: decoded whole
		body, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return decodeAppend(ds, body, opts, decl, path, progress)
	}
	return streamNDJSON(ds, r, opts, decl, path, progress)
}

// streamNDJSON cuts the stream into chunks of whole lines and decodes them
// on one worker per core.
func streamNDJSON(ds *store.Dataset, r io.Reader, opts ingest.Options, decl *fieldDecl, path string, progress *loadProgress) error {
	chunks := make(chan []byte, 2)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range chunks {
				if err := decodeAppend(ds, c, opts, decl, path, progress); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	readErr := cutLines(r, loadChunk, func(c []byte) { chunks <- c })
	close(chunks)
	wg.Wait()
	if readErr != nil {
		return readErr
	}
	if first != nil {
		return first
	}
	return ds.Flush()
}

// cutLines reads r in chunks of about size bytes that end at a newline
// (a line longer than size makes a longer chunk).
func cutLines(r io.Reader, size int, emit func([]byte)) error {
	var carry []byte
	for {
		buf := make([]byte, len(carry), size+len(carry))
		copy(buf, carry)
		n, err := io.ReadFull(r, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return err
		}
		if eof {
			if len(buf) > 0 {
				emit(buf)
			}
			return nil
		}
		cut := bytes.LastIndexByte(buf, '\n') + 1
		if cut == 0 { // one line longer than the chunk: keep reading
			carry = buf
			continue
		}
		carry = append([]byte(nil), buf[cut:]...)
		emit(buf[:cut])
	}
}

// decodeAppend decodes one chunk and appends its rows; failed events are
// reported, not fatal (as the server's ingest does).
func decodeAppend(ds *store.Dataset, body []byte, opts ingest.Options, decl *fieldDecl, path string, progress *loadProgress) error {
	b := store.NewRowsBuilder()
	res, err := ingest.Decode(body, opts, b)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if res.Failed > 0 {
		fmt.Fprintf(os.Stderr, "aplite query: %s: %d events failed, first: %s\n", path, res.Failed, res.Failures[0].Error)
	}
	progress.rows.Add(int64(res.Ingested))
	rows := b.Finish(opts.Now)
	decl.retype(rows, path)
	_, err = ds.Append(rows)
	return err
}

// queryFields returns the fields a query can read, as a Keep function for
// the decoders, or nil when it may read any field: a `*`, a column
// pattern, search, getschema, union, join, lookup or pack_all, or a
// result that keeps the raw events (no summarize, count, project,
// distinct or make-series). Every identifier and string literal of the
// query counts as a field name: over-keeping costs only memory.
func queryFields(apl string) func(string) bool {
	q, err := parser.Parse(apl)
	if err != nil || q.Body == nil {
		return nil // the engine reports the error
	}
	all := true
	for _, op := range q.Body.Ops {
		switch op.(type) {
		case *parser.SummarizeOp, *parser.CountOp, *parser.ProjectOp, *parser.DistinctOp, *parser.MakeSeriesOp:
			all = false
		}
	}
	names := map[string]bool{}
	parser.Walk(q, func(n parser.Node) bool {
		switch n := n.(type) {
		case *parser.StarExpr, *parser.ColumnPattern, *parser.SearchOp, *parser.GetSchemaOp,
			*parser.UnionOp, *parser.JoinOp, *parser.LookupOp:
			all = true
		case *parser.CallExpr:
			if n.Name == "pack_all" {
				all = true
			}
		case *parser.Ident:
			names[n.Name] = true
		case *parser.MemberExpr:
			if name, ok := memberPath(n); ok {
				names[name] = true
				return false // not its parts: geo.city keeps geo.city, not all of geo
			}
		case *parser.Literal:
			if s, ok := n.Value.(string); ok {
				names[s] = true
			}
		}
		return true
	})
	if all {
		return nil
	}
	return func(path string) bool {
		if names[path] {
			return true
		}
		for n := range names { // a parent of a kept path, or a child of one
			if strings.HasPrefix(n, path+".") || strings.HasPrefix(path, n+".") {
				return true
			}
		}
		return false
	}
}

func memberPath(e parser.Expr) (string, bool) {
	switch e := e.(type) {
	case *parser.Ident:
		return e.Name, true
	case *parser.MemberExpr:
		if p, ok := memberPath(e.X); ok {
			return p + "." + e.Name, true
		}
	}
	return "", false
}

// loadProgress prints bytes read, rows and elapsed time on stderr while
// files load, when stderr is a terminal.
type loadProgress struct {
	on   bool
	rows atomic.Int64
	stop chan struct{}
	wg   sync.WaitGroup
}

func newLoadProgress() *loadProgress {
	st, err := os.Stderr.Stat()
	return &loadProgress{on: err == nil && st.Mode()&os.ModeCharDevice != 0}
}

func (p *loadProgress) start(path string, cr *countingReader) {
	if !p.on {
		return
	}
	p.stop = make(chan struct{})
	began := time.Now()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				fmt.Fprint(os.Stderr, "\r\033[K")
				return
			case <-t.C:
				fmt.Fprintf(os.Stderr, "\r\033[K%s: %s of %s, %d rows, %.1fs", filepath.Base(path),
					mib(cr.n.Load()), mib(cr.total), p.rows.Load(), time.Since(began).Seconds())
			}
		}
	}()
}

func (p *loadProgress) done() {
	if p.on && p.stop != nil {
		close(p.stop)
		p.wg.Wait()
		p.stop = nil
	}
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
