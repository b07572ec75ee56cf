package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/db"
)

// Files queried in place (issue 16): a dropped NDJSON file is not loaded
// into the store. The session keeps a way to read its bytes (File.slice
// in the console's Web Worker) and every query over it reads the file
// again as a db.TableStream, a slice of whole lines at a time, decoding
// only the fields the query reads (db.QueryReads) and dropping each
// slice once scanned: the tab holds a slice and the query's state, never
// the file. With helpers (SetHelpers), the file is cut into one byte
// range per engine and each decodes its own range (db.SplitStream).

// ReadFunc reads the bytes of a file from off into dst and returns how
// many it read: len(dst), fewer only at the file's end. The console's is
// asynchronous underneath, so it is only called from a goroutine that may
// block (queryAsync in wasm/api_async.go). It gives up when ctx ends,
// the query's: a read the page never answers must not keep a cancelled
// query, and the Run button, waiting (issue 26).
type ReadFunc func(ctx context.Context, off int64, dst []byte) (int, error)

// placeChunk (a variable for tests) is the size of the slices a file is read and decoded by:
// small enough that several engines' slices fit a tab, large enough that
// the reads' own cost (a promise and a copy each) stays small.
var placeChunk int64 = 4 << 20

// openSample is how much of a file OpenFile decodes to learn its fields:
// the lines that start in its first MiB, about 1,500 events of a web
// log. Decoding a whole slice of every field took most of the time from
// the drop to the first answer (issue 26); a field found only further on
// is looked for when a query names it (learnFields).
var openSample int64 = 1 << 20

// minPiece (a variable for tests) is the smallest byte range worth handing to another engine.
var minPiece int64 = 16 << 20

// placeFile is an NDJSON file the session queries in place.
type placeFile struct {
	name string
	size int64
	read ReadFunc
	now  int64
	// fields are the fields and types seen so far: the first openSample bytes' at
	// open, then those a learning pass found (learnFields).
	mu     sync.Mutex
	fields map[string]db.ColKey
	// fruitless are the queries (by text) a learning pass found no new
	// field for, so a query with a misspelt field scans the file once,
	// not every time it is run again.
	fruitless map[string]bool
	// failed counts the lines the last query could not decode.
	failed db.FailureTally
	// rows counts the rows the running query has decoded, for progress.
	rows atomic.Int64
	// cache keeps the columns the queries decode (place_cache.go).
	cache *chunkCache
	// bufs recycles slice buffers: the rows a slice decodes to copy what
	// they keep, so its bytes can hold the next slice. A fresh buffer per
	// slice made the tab's memory grow by the file's size per query until
	// Go's collector ran.
	bufs sync.Pool
}

// buffer returns a buffer of at least n bytes, with room for a partial
// line carried over.
func (f *placeFile) buffer(n int) []byte {
	if p, ok := f.bufs.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]byte, n, n+n/16)
}

func (f *placeFile) recycle(b []byte) {
	if int64(cap(b)) >= placeChunk {
		b = b[:0]
		f.bufs.Put(&b)
	}
}

// OpenResult is what OpenFile did.
type OpenResult struct {
	Dataset string  `json:"dataset"`
	Format  string  `json:"format"`
	InPlace bool    `json:"inPlace"`
	Bytes   int64   `json:"bytes"`
	Fields  []Field `json:"fields"`
}

// OpenFile makes the NDJSON file fileName a dataset queried in place,
// replacing a dataset of that name; read reads its bytes. Its fields are
// those of its first openSample bytes until a query names one found only
// further on.
func (s *Session) OpenFile(fileName string, size int64, read ReadFunc, now time.Time) (OpenResult, error) {
	name := DatasetName(fileName)
	if err := db.ValidateName(name); err != nil {
		return OpenResult{}, err
	}
	if f := FormatFromFileName(fileName); f != NDJSON && f != Auto {
		return OpenResult{}, fmt.Errorf("%s is %s: only NDJSON is queried in place, load it instead", fileName, f)
	}
	f := s.newPlaceFile(name, size, read, now)
	rd := f.pieceReader(context.Background(), 0, min(size, openSample), nil)
	c, err := rd.Next()
	if err != nil && err != io.EOF {
		return OpenResult{}, fmt.Errorf("cannot read %s: %w", fileName, err)
	}
	if c != nil {
		rows, err := c.Decode()
		if err != nil {
			return OpenResult{}, fmt.Errorf("%s is not NDJSON: %w", fileName, err)
		}
		if n, first := f.failed.Take(); n > 0 && rows.N == 0 {
			return OpenResult{}, fmt.Errorf("%s is not NDJSON: %s", fileName, first)
		}
		f.learn(rows.Keys)
	}
	s.attach(f)
	return OpenResult{Dataset: name, Format: NDJSON, InPlace: true, Bytes: size, Fields: fields(f.keys())}, nil
}

func (s *Session) newPlaceFile(name string, size int64, read ReadFunc, now time.Time) *placeFile {
	if now.IsZero() {
		now = s.now()
	}
	return &placeFile{name: name, size: size, read: read, now: now.UnixNano(), fields: map[string]db.ColKey{}, fruitless: map[string]bool{},
		cache: newChunkCache()}
}

// attach makes f the dataset of its name, replacing whatever had it.
func (s *Session) attach(f *placeFile) {
	s.forget(f.name)
	_ = s.db.Delete(f.name) // none is fine
	s.mu.Lock()
	s.files[f.name] = f
	s.mu.Unlock()
}

// AttachFile makes the NDJSON file fileName readable in place here
// without reading any of it: a helper engine (SetHelpers) only runs the
// fragments another engine planned, whose plans carry the types, so the
// fields OpenFile learns from the first slice would be read for nothing.
func (s *Session) AttachFile(fileName string, size int64, read ReadFunc, now time.Time) (OpenResult, error) {
	name := DatasetName(fileName)
	if err := db.ValidateName(name); err != nil {
		return OpenResult{}, err
	}
	s.attach(s.newPlaceFile(name, size, read, now))
	return OpenResult{Dataset: name, Format: NDJSON, InPlace: true, Bytes: size, Fields: []Field{}}, nil
}

func (f *placeFile) learn(keys []db.ColKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range keys {
		f.fields[k.Name+"\x00"+strconv.Itoa(int(k.Type))] = k
	}
}

func (f *placeFile) keys() []db.ColKey {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]db.ColKey, 0, len(f.fields))
	for _, k := range f.fields {
		out = append(out, k)
	}
	return out
}

// file returns the in-place file of that dataset, or nil.
func (s *Session) file(name string) *placeFile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[name]
}

// fileStream is one query's read of a placeFile: the whole file, or one
// piece of it, decoding the fields keep allows (nil: every field).
type fileStream struct {
	ctx context.Context // the query's, which its reads end with
	f   *placeFile
	// keep is "*" for every field, or "apl:" and the query's text, whose
	// db.QueryReads tells the fields to decode: a piece's description
	// carries it to another engine as it is.
	keep     string
	from, to int64
	// partial marks a read of only the start of the file (a prefix): it
	// uses the slices kept but keeps none, as its last slice is cut at
	// the prefix, not where later reads cut it.
	partial bool
}

// Fields are the fields the file is known to have, among those the query
// reads, so planning reads nothing; a slice with more widens them and the
// query is planned again.
func (s *fileStream) Fields() []db.ColKey {
	keep := keepFunc(s.keep)
	out := []db.ColKey{}
	for _, k := range s.f.keys() {
		if keep == nil || keep(k.Name) {
			out = append(out, k)
		}
	}
	return out
}

func (s *fileStream) Open() (db.ChunkReader, error) {
	r := s.f.pieceReader(s.ctx, s.from, s.to, keepFunc(s.keep))
	r.cache, r.partial = s.f.cache, s.partial
	return r, nil
}

// keepFunc is the decoders' Keep of a stream's keep.
func keepFunc(keep string) func(string) bool {
	apl, ok := strings.CutPrefix(keep, "apl:")
	if !ok {
		return nil
	}
	r, err := db.QueryReads(apl)
	if err != nil {
		return nil
	}
	return r.Keep
}

// Pieces cuts the stream into at most n byte ranges of at least minPiece
// bytes; a line belongs to the range it starts in.
func (s *fileStream) Pieces(n int) []string {
	size := s.to - s.from
	n = int(min(int64(n), size/minPiece))
	if n < 2 {
		return nil
	}
	out := make([]string, n)
	for i := range n {
		out[i] = fmt.Sprintf("bytes=%d-%d;%s", s.from+size*int64(i)/int64(n), s.from+size*int64(i+1)/int64(n), s.keep)
	}
	return out
}

// Piece is the stream of a range Pieces described.
func (s *fileStream) Piece(desc string) (db.TableStream, error) {
	return s.f.piece(s.ctx, desc)
}

// piece parses a piece's description: "bytes=FROM-TO;KEEP", KEEP a
// fileStream's keep, into a stream read under ctx.
func (f *placeFile) piece(ctx context.Context, desc string) (*fileStream, error) {
	rng, keep, ok := strings.Cut(desc, ";")
	from, to, ok2 := strings.Cut(strings.TrimPrefix(rng, "bytes="), "-")
	a, err1 := strconv.ParseInt(from, 10, 64)
	b, err2 := strconv.ParseInt(to, 10, 64)
	if !ok || !ok2 || err1 != nil || err2 != nil || a < 0 || b < a || b > f.size {
		return nil, fmt.Errorf("bad piece %q of %s (%d bytes)", desc, f.name, f.size)
	}
	return &fileStream{ctx: ctx, f: f, keep: keep, from: a, to: b}, nil
}

// options are the decoder's settings for a read keeping keep (nil:
// every field).
func (f *placeFile) options(keep func(string) bool) db.IngestOptions {
	return db.IngestOptions{Format: db.NDJSON, Now: f.now, MaxFailures: maxFailures, Keep: keep}
}

// pieceReader cuts bytes [from, to) of f into chunks of whole lines: the
// lines that start in the range, the last one read to its end even past
// to.
func (f *placeFile) pieceReader(ctx context.Context, from, to int64, keep func(string) bool) *lineReader {
	r := &lineReader{ctx: ctx, f: f, from: from, pos: from, end: to, opts: f.options(keep)}
	if from > 0 { // the line at from belongs to this range only if it starts there
		r.pos, r.skipping = from-1, true
	}
	return r
}

// lineReader yields a piece's lines a slice at a time.
type lineReader struct {
	ctx      context.Context
	f        *placeFile
	opts     db.IngestOptions
	from     int64
	pos, end int64 // next byte to read; the range's end
	skipping bool  // discarding the line that started before the range
	// cache, when set, is where the slices this read decodes are kept and
	// where it takes those kept before instead of reading them.
	cache   *chunkCache
	partial bool // keeps no slice (fileStream.partial)
	carry   []byte
	done    bool
}

// fromCache returns the kept slice at the read's position, if it serves
// the read, and moves past it; it also moves a read that starts inside a
// line to the first line after, when a read of the same range found it.
func (r *lineReader) fromCache() (db.Chunk, bool) {
	off := r.pos - int64(len(r.carry))
	if r.skipping {
		at, ok := r.cache.skipTo(r.from)
		if !ok {
			return nil, false
		}
		off = at
	}
	e := r.cache.hit(off, r.end, r.opts.Keep)
	if e == nil {
		return nil, false
	}
	r.pos, r.carry, r.skipping = e.end, nil, false
	return &cachedChunkRead{f: r.f, e: e, keep: r.opts.Keep}, true
}

func (r *lineReader) Next() (db.Chunk, error) {
	for !r.done {
		if r.cache != nil {
			if c, ok := r.fromCache(); ok {
				return c, nil
			}
		}
		if r.pos >= r.f.size {
			r.done = true
			break
		}
		if !r.skipping && r.pos >= r.end && len(r.carry) == 0 {
			return nil, io.EOF
		}
		// Reads end on multiples of placeChunk, whatever the range and
		// whatever slices were taken from the cache before: a slice then
		// ends at the last line end before one of them, so every read of
		// the file cuts it the same way and finds the slices kept by
		// earlier reads (place_cache.go).
		n := min((r.pos/placeChunk+1)*placeChunk, r.f.size) - r.pos
		buf := r.f.buffer(len(r.carry) + int(n))
		copy(buf, r.carry)
		data := buf[len(r.carry):]
		got, err := r.f.read(r.ctx, r.pos, data)
		if err != nil {
			return nil, fmt.Errorf("reading %s at byte %d: %w", r.f.name, r.pos, err)
		}
		if got == 0 {
			return nil, fmt.Errorf("reading %s at byte %d: the file ended early (it changed?)", r.f.name, r.pos)
		}
		r.pos += int64(got)
		buf = buf[:len(r.carry)+got]
		if r.skipping {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				r.f.recycle(buf)
				continue
			}
			r.skipping = false
			buf = buf[i+1:]
			if r.cache != nil {
				r.cache.noteSkip(r.from, r.pos-int64(len(buf)))
			}
			if r.pos-int64(len(buf)) >= r.end {
				return nil, io.EOF // no line starts in the range
			}
		}
		r.carry = nil
		if r.pos >= r.end { // the range ends in buf: at the end of the line holding its last byte
			j := r.end - 1 - (r.pos - int64(len(buf)))
			if k := bytes.IndexByte(buf[j:], '\n'); k >= 0 {
				r.done = true
				return r.chunk(buf[:j+int64(k)+1], r.pos-int64(len(buf))), nil
			}
			r.carry = buf
			continue
		}
		cut := bytes.LastIndexByte(buf, '\n') + 1
		if cut == 0 { // one line longer than a slice: read on
			r.carry = buf
			continue
		}
		r.carry = append([]byte(nil), buf[cut:]...)
		return r.chunk(buf[:cut], r.pos-int64(len(buf))), nil
	}
	if len(bytes.TrimSpace(r.carry)) > 0 {
		c := r.carry
		r.carry = nil
		return r.chunk(c, r.pos-int64(len(c))), nil
	}
	return nil, io.EOF
}

// chunk is the lines b, which start at byte start of the file.
func (r *lineReader) chunk(b []byte, start int64) db.Chunk {
	c := &lineChunk{f: r.f, body: b, opts: r.opts}
	if r.cache != nil && !r.partial {
		c.cache, c.start = r.cache, start
	}
	return c
}

func (r *lineReader) Close() error { return nil }

// lineChunk is some whole lines of a file read in place.
type lineChunk struct {
	f    *placeFile
	body []byte
	opts db.IngestOptions
	// cache, when set, keeps the decoded lines, which start at byte start.
	cache *chunkCache
	start int64
}

func (c *lineChunk) Stats() db.Part { return nil }

func (c *lineChunk) Decode() (*db.Rows, error) {
	opts := c.opts
	var paths map[string]bool
	if c.cache != nil {
		paths = map[string]bool{}
		opts.Keep = recordPaths(opts.Keep, paths)
	}
	rows, res, err := db.Decode(c.body, opts)
	if err == nil && c.cache != nil {
		end := c.start + int64(len(c.body))
		last := c.start + int64(bytes.LastIndexByte(c.body[:len(c.body)-1], '\n')+1)
		c.cache.keep(c.start, end, last, rows, paths, res.Result)
	}
	c.f.recycle(c.body)
	c.body = nil
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.f.name, err)
	}
	c.f.failed.Add(res.Result)
	c.f.rows.Add(int64(rows.N))
	return rows, nil
}

// errNotInPlace is returned for a piece of a dataset no file backs.
var errNotInPlace = errors.New("no file is open in place under that name")
