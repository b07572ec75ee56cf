package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aplite/aplite/db"
)

// Files queried in place (issue 16): when the query names the fields it
// reads (queryFields), each -in file is a db.TableStream and the
// planner scans it chunk by chunk, decoding only those fields, on every
// core, and stops reading once a take has its rows; nothing is loaded into
// a store, so memory follows the chunk size, not the file.
//
// NDJSON is cut into chunks of whole lines (-chunk-bytes, db.StreamChunk
// by default); a JSON
// array or a CSV file is one chunk (a CSV record may span lines), so its
// memory is the file's, as when loaded. Parquet chunks are row groups,
// skipped unread when their statistics rule out the query's filters.
//
// Parquet and NDJSON files are read in place for every query; queries
// that keep the raw events or read every field (where, sort, take, *, ...:
// queryFields returns nil) decode every field of each chunk, so a filter
// over a large file holds its matches, not the file. JSON arrays and CSV
// files are loaded for those, as one chunk holds all of them anyway. A
// query the streams cannot plan loads every file: a field the query names
// that the first chunk lacks, a union or search over a file, or types
// that keep widening (db.ErrStreamSchema).

// fileStream is an NDJSON, JSON or CSV file (gzip and zstd too) read as a
// stream of chunks.
type fileStream struct {
	path   string
	format db.Format
	comp   string
	opts   db.IngestOptions
	decl   *fieldDecl
	fails  *failures
	// chunk is the size of the NDJSON chunks.
	chunk int
	// progress counts what the query has read (nil: not shown).
	progress *scanPart
	// bufs holds chunk buffers whose lines are decoded. A fresh 8 MB
	// buffer per chunk cost a memclr of the whole file and a GC cycle every
	// few chunks, about a fifth of the CPU of a projected query.
	bufs sync.Pool
}

// buffer returns a buffer of length n for a chunk, reused when it can be.
func (s *fileStream) buffer(n int) []byte {
	if p, ok := s.bufs.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	// Headroom for the carried partial line, so the buffer fits the next
	// chunks too.
	return make([]byte, n, n+n/64)
}

// recycle hands back the buffer of a decoded chunk.
func (s *fileStream) recycle(b []byte) {
	if cap(b) >= s.chunk {
		s.bufs.Put(&b)
	}
}

// failures collects the events a stream could not decode, reported once
// the query ran as the load path reports them.
type failures struct{ db.FailureTally }

func (f *failures) report(path string) {
	if n, first := f.Take(); n > 0 {
		fmt.Fprintf(os.Stderr, "aplite query: %s: %d events failed, first: %s\n", path, n, first)
	}
}

func (s *fileStream) Fields() []db.ColKey { return nil }

// Open starts a read; the failures counted are those of the last read
// (a query restarted after a type widened reads the file again).
func (s *fileStream) Open() (db.ChunkReader, error) {
	s.fails.Take()
	s.progress.restart()
	if s.format == db.NDJSON && s.comp == "" {
		if data, unmap := mapFile(s.path); data != nil {
			return &mappedChunks{s: s, data: data, unmap: unmap}, nil
		}
	}
	r, closeFile, _, err := openFile(s.path, s.comp)
	if err != nil {
		return nil, err
	}
	return &lineChunks{s: s, r: r, close: closeFile, whole: s.format != db.NDJSON}, nil
}

// lineChunks cuts a file into chunks of whole lines, or hands out the
// whole file once when whole is set.
type lineChunks struct {
	s     *fileStream
	r     io.Reader
	close func()
	whole bool
	carry []byte
	done  bool
}

func (c *lineChunks) Next() (db.Chunk, error) {
	if c.done {
		return nil, io.EOF
	}
	if c.whole {
		c.done = true
		body, err := io.ReadAll(c.r)
		if err != nil {
			return nil, err
		}
		return &textChunk{s: c.s, body: body}, nil
	}
	for {
		buf := c.s.buffer(len(c.carry) + c.s.chunk)
		copy(buf, c.carry)
		n, err := io.ReadFull(c.r, buf[len(c.carry):])
		buf = buf[:len(c.carry)+n]
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			c.done = true
			if len(bytes.TrimSpace(buf)) == 0 {
				return nil, io.EOF
			}
			return &textChunk{s: c.s, body: buf}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", c.s.path, err)
		}
		cut := bytes.LastIndexByte(buf, '\n') + 1
		if cut == 0 { // one line longer than the chunk: keep reading
			c.carry = buf
			continue
		}
		c.carry = append(c.carry[:0:0], buf[cut:]...)
		return &textChunk{s: c.s, body: buf[:cut]}, nil
	}
}

func (c *lineChunks) Close() error {
	c.close()
	return nil
}

// mappedChunks cuts a mapped NDJSON file into chunks of whole lines
// without copying them.
type mappedChunks struct {
	s     *fileStream
	data  []byte
	off   int
	unmap func()
}

func (c *mappedChunks) Next() (db.Chunk, error) {
	rest := c.data[c.off:]
	if len(bytes.TrimSpace(rest)) == 0 {
		return nil, io.EOF
	}
	n := len(rest)
	if n > c.s.chunk {
		n = bytes.LastIndexByte(rest[:c.s.chunk], '\n') + 1
		if n == 0 { // one line longer than the chunk: take all of it
			if n = bytes.IndexByte(rest[c.s.chunk:], '\n') + 1; n == 0 {
				n = len(rest)
			} else {
				n += c.s.chunk
			}
		}
	}
	c.off += n
	return &textChunk{s: c.s, body: rest[:n:n], mapped: true}, nil
}

// Close unmaps the file; the scan calls it once every chunk it took is
// decoded, and the rows never point into the mapping.
func (c *mappedChunks) Close() error {
	c.unmap()
	return nil
}

// textChunk is some lines of an NDJSON file, or a whole JSON or CSV file.
type textChunk struct {
	s    *fileStream
	body []byte
	// mapped is set when body is part of a mapped file, dropped from the
	// resident set once decoded instead of reused.
	mapped bool
}

func (c *textChunk) Stats() db.Part { return nil }

func (c *textChunk) Decode() (*db.Rows, error) {
	n := len(c.body)
	rows, res, err := db.Decode(c.body, c.s.opts)
	// The rows hold copies of the strings they keep (the decoder's arena),
	// never the body, so the body can carry the next chunk.
	if c.mapped {
		dropMapped(c.body)
	} else {
		c.s.recycle(c.body)
	}
	c.body = nil
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.s.path, err)
	}
	c.s.fails.Add(res.Result)
	c.s.decl.retype(rows, c.s.path)
	c.s.progress.read(int64(n), rows.N)
	return rows, nil
}

// fileStreams opens the -in files a query reads in place as streams, and
// returns the other inputs, to load. Parquet files always stream (their
// schema is known before any row is read), and NDJSON; JSON arrays and
// CSV only when keep names the fields the query reads (nil: it may read
// any).
func fileStreams(inputs []string, decls map[string]*fieldDecl, keep func(string) bool, chunk int, progress *scanProgress) (map[string]db.TableStream, []string, func(), error) {
	now := time.Now().UnixNano()
	out := map[string]db.TableStream{}
	var rest []string
	var reports []func()
	for _, in := range inputs {
		name, path, ok := strings.Cut(in, "=")
		if !ok || name == "" || path == "" {
			return nil, nil, nil, fmt.Errorf("-in %q: want NAME=PATH", in)
		}
		if strings.HasSuffix(strings.ToLower(path), ".parquet") {
			ps, err := newParquetStream(path, decls[name], keep)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("-in %s: %w", in, err)
			}
			ps.progress = progress.part()
			out[name] = ps
			continue
		}
		format, comp, err := fileFormat(path)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("-in %s: %w", in, err)
		}
		if keep == nil && format != db.NDJSON {
			// A JSON array or CSV file is one chunk: streaming it holds
			// as much as loading it, and loading keeps every field.
			rest = append(rest, in)
			continue
		}
		if _, err := os.Stat(path); err != nil {
			return nil, nil, nil, fmt.Errorf("-in %s: %w", in, err)
		}
		fs := &fileStream{path: path, format: format, comp: comp, decl: decls[name], fails: &failures{}, chunk: max(chunk, 1), progress: progress.part(),
			opts: db.IngestOptions{Format: format, Keep: keep, Now: now}}
		if d := decls[name]; d != nil {
			fs.opts.MapFields = d.mapFields
		}
		out[name] = fs
		reports = append(reports, func() { fs.fails.report(path) })
	}
	return out, rest, func() {
		for _, r := range reports {
			r()
		}
	}, nil
}

// streamFallback reports whether a query over streams failed in a way the
// load path may answer: a field the first chunk lacks, or types that
// would not settle.
func streamFallback(err error) bool {
	var qe *db.QueryError
	return errors.Is(err, db.ErrStreamSchema) || errors.As(err, &qe) && qe.Kind == "semantic"
}
