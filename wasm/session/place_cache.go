package session

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/aplite/aplite/db"
)

// Columns kept in memory (issue 26): reading a file in place paid the
// read and, above all, the JSON decoding of every slice again for every
// query, so a later query over a 1M-event file took 6.9 s in the console
// where `aplite query -in` took 2.6 s. Each engine now keeps the columns
// its reads decode, by slice (a chunk of whole lines, keyed by the offset
// of its first line), and a later read that reaches that offset scans
// the kept columns instead of reading and decoding the bytes again. A
// query that needs a field the kept columns lack decodes those slices
// once more and adds the new columns to them.
//
// Memory is bounded by cacheLimit per engine (each helper engine keeps
// the slices of its own byte range). A slice that would pass it is not
// kept: queries read and decode it from the file every time, as before,
// and their answers say so in a "not_cached" message.

// cacheLimit (a variable for tests) is how many bytes of decoded columns
// one engine keeps for its files read in place: with the helper engines'
// share, all the columns of a 1M-event web log (635 MiB of NDJSON) fit
// on a two-core machine, and each engine's WASM memory stays well under
// the browser's 4 GiB.
var cacheLimit int64 = 768 << 20

// NotCachedCode is the code of the message of a result some of whose
// slices were read from the file again because the kept columns reached
// the engine's limit.
const NotCachedCode = "not_cached"

// chunkCache holds the decoded slices of one file.
type chunkCache struct {
	mu     sync.Mutex
	chunks map[int64]*cachedChunk // by the offset of their first line
	// skips maps the start of a byte range that began inside a line to the
	// offset of the first line after it, so a later read of that range
	// (a helper's) starts at its first kept slice without reading.
	skips map[int64]int64
	bytes int64
	// full is set once a slice was left out for the limit.
	full bool
}

// cachedChunk is one slice's lines, decoded.
type cachedChunk struct {
	// start and end bound its bytes; last is where its last line starts.
	start, end, last int64
	rows             *db.Rows
	// paths are the field paths the decoders met in the slice, and
	// whether their columns are in rows: a field of the slice that no
	// query has read yet is known to be missing, not absent.
	paths map[string]bool
	// res is the slice's decoding failures, counted again by each query
	// that scans it.
	res   db.DecodeResult
	bytes int64
}

func newChunkCache() *chunkCache {
	return &chunkCache{chunks: map[int64]*cachedChunk{}, skips: map[int64]int64{}}
}

// covers reports whether the kept columns hold every field keep (nil:
// every field) reads.
func (c *cachedChunk) covers(keep func(string) bool) bool {
	for p, have := range c.paths {
		if !have && (keep == nil || keep(p)) {
			return false
		}
	}
	return true
}

// view is the slice's rows with the columns keep reads, as decoding the
// slice with keep would have given them: the scan takes any other column
// for a field the query was not planned with.
func (c *cachedChunk) view(keep func(string) bool) *db.Rows {
	if keep == nil {
		return c.rows
	}
	r := *c.rows
	r.Keys, r.Cols = nil, nil
	for i, k := range c.rows.Keys {
		name := k.Name
		if keep(name) || strings.HasPrefix(name, "_user_") && keep(name[len("_user_"):]) {
			r.Keys = append(r.Keys, k)
			r.Cols = append(r.Cols, c.rows.Cols[i])
		}
	}
	return &r
}

// hit returns the kept slice whose first line starts at off when all its
// lines start before end (the read's range holds them) and it holds the
// columns keep reads; nil otherwise.
func (c *chunkCache) hit(off, end int64, keep func(string) bool) *cachedChunk {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.chunks[off]
	if e == nil || e.last >= end || !e.covers(keep) {
		return nil
	}
	return e
}

// skipTo returns the first line after from, when a read that started
// there found it.
func (c *chunkCache) skipTo(from int64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.skips[from]
	return at, ok
}

func (c *chunkCache) noteSkip(from, at int64) {
	c.mu.Lock()
	c.skips[from] = at
	c.mu.Unlock()
}

// keep stores a slice's freshly decoded rows, or adds their columns to
// the slice kept at the same bytes. A slice cut elsewhere than the one
// kept at its offset (a read over another range) is not kept.
func (c *chunkCache) keep(start, end, last int64, rows *db.Rows, paths map[string]bool, res db.DecodeResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.chunks[start]
	if e == nil {
		n := rowsBytes(rows)
		if c.bytes+n > cacheLimit {
			c.full = true
			return
		}
		c.bytes += n
		c.chunks[start] = &cachedChunk{start: start, end: end, last: last, rows: rows, paths: paths, res: res, bytes: n}
		return
	}
	if e.end != end || !sameLines(e.rows, rows) {
		return
	}
	merged := *e.rows
	merged.Keys = append([]db.ColKey(nil), e.rows.Keys...)
	merged.Cols = append(merged.Cols[:0:0], e.rows.Cols...)
	var add int64
	for i, k := range rows.Keys {
		if e.rows.Column(k) == nil {
			merged.Keys = append(merged.Keys, k)
			merged.Cols = append(merged.Cols, rows.Cols[i])
			add += rows.Cols[i].Bytes()
		}
	}
	if add == 0 && len(merged.Keys) == len(e.rows.Keys) && !newPaths(e.paths, paths) {
		return
	}
	if c.bytes+add > cacheLimit {
		c.full = true
		return
	}
	all := make(map[string]bool, len(e.paths)+len(paths))
	for _, m := range []map[string]bool{e.paths, paths} {
		for p, have := range m {
			all[p] = all[p] || have
		}
	}
	c.bytes += add
	e.bytes += add
	e.rows, e.paths = &merged, all
}

// sameLines reports whether a and b are the same lines decoded: a field
// a decode left out is still checked, so both kept the same events.
func sameLines(a, b *db.Rows) bool {
	if a.N != b.N || len(a.Time) != len(b.Time) {
		return false
	}
	return a.N == 0 || len(a.Time) == 0 || a.Time[0] == b.Time[0] && a.Time[len(a.Time)-1] == b.Time[len(b.Time)-1]
}

// newPaths reports whether paths decodes a path that have lacks.
func newPaths(have, paths map[string]bool) bool {
	for p, ok := range paths {
		if ok && !have[p] {
			return true
		}
	}
	return false
}

// covering reports whether the kept slices hold, for keep, every line
// that starts in [0, to).
func (c *chunkCache) covering(to int64, keep func(string) bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for off := int64(0); off < to; {
		e := c.chunks[off]
		if e == nil || !e.covers(keep) {
			return false
		}
		off = e.end
	}
	return true
}

// stats are the bytes the columns hold and whether some were left out.
func (c *chunkCache) stats() (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes, c.full
}

func rowsBytes(r *db.Rows) int64 {
	n := int64(len(r.Time)) * 8
	for _, v := range r.Cols {
		n += v.Bytes()
	}
	return n
}

// cachedChunkRead is a kept slice as a read yields it.
type cachedChunkRead struct {
	f    *placeFile
	e    *cachedChunk
	keep func(string) bool
}

func (c *cachedChunkRead) Stats() db.Part { return nil }

func (c *cachedChunkRead) Decode() (*db.Rows, error) {
	c.f.cache.mu.Lock()
	rows, res := c.e.view(c.keep), c.e.res
	c.f.cache.mu.Unlock()
	c.f.failed.Add(res)
	c.f.rows.Add(int64(rows.N))
	return rows, nil
}

// recordPaths wraps keep so that it notes in paths every field path the
// decoder asks about and the answer: the decoder asks once per path and
// slice, so this costs nothing per line.
func recordPaths(keep func(string) bool, paths map[string]bool) func(string) bool {
	return func(p string) bool {
		k := keep == nil || keep(p)
		paths[p] = k
		return k
	}
}

// Fill decodes every field of this engine's share of the in-place file
// of dataset, keeping the columns, so that later queries over any field
// read nothing: piece (0-based) of the nodes engines a query spreads
// over (SetHelpers) is the byte range that engine scans, 0 this one's.
// The console runs it while the page is idle and cancels it (ctx) when
// the user runs a query; what it decoded stays. It stops early, without
// error, when the columns reach the engine's limit.
func (s *Session) Fill(ctx context.Context, dataset string, piece, nodes int) error {
	f := s.file(dataset)
	if f == nil {
		return fmt.Errorf("%s: %w", dataset, errNotInPlace)
	}
	from, to := int64(0), f.size
	if p := (&fileStream{f: f, to: f.size}).Pieces(nodes); len(p) > 0 {
		if piece >= len(p) {
			return nil // a file too small to give this engine a piece
		}
		from, to = f.size*int64(piece)/int64(len(p)), f.size*int64(piece+1)/int64(len(p))
	} else if piece > 0 {
		return nil
	}
	rd := f.pieceReader(ctx, from, to, nil)
	rd.cache = f.cache
	defer f.failed.Take() // its failures are the queries' to report
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, full := f.cache.stats(); full {
			return nil
		}
		c, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := c.Decode(); err != nil {
			return err
		}
	}
}
