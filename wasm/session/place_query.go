package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/aplite/aplite/db"
)

// SetHelpers spreads the scans of files read in place over other engines:
// d.Nodes names this engine (d.Self) and its helpers, and d.Run sends a
// fragment to a helper, which answers with its RunFragment. nil scans
// here alone.
func (s *Session) SetHelpers(d *db.Distribution) {
	s.mu.Lock()
	s.helpers = d
	s.mu.Unlock()
}

// ReadsInPlace reports whether apl reads a file opened in place, which
// only a caller that may block on the file's reads can run (in the
// browser, queryAsync).
func (s *Session) ReadsInPlace(apl string) bool {
	files, _ := s.placeStreams(apl)
	return len(files) > 0
}

// InMemory reports whether a query over the files read in place that apl
// names would scan only columns this engine keeps (place_cache.go),
// reading none of its share of the files: the console then skips the
// quick partial answer it shows while a file is read.
func (s *Session) InMemory(apl string) bool {
	files, r := s.placeStreams(apl)
	if len(files) == 0 {
		return false
	}
	s.mu.Lock()
	nodes := 1
	if s.helpers != nil {
		nodes = len(s.helpers.Nodes)
	}
	s.mu.Unlock()
	for _, f := range files {
		to := f.size
		if p := (&fileStream{f: f, to: f.size}).Pieces(nodes); len(p) > 0 {
			to = f.size / int64(len(p)) // this engine scans the first piece
		}
		if !f.cache.covering(to, r.Keep) {
			return false
		}
	}
	return true
}

// placeStreams returns the in-place files apl names, and what it reads.
func (s *Session) placeStreams(apl string) ([]*placeFile, db.Reads) {
	s.mu.Lock()
	none := len(s.files) == 0
	s.mu.Unlock()
	if none { // the usual case: no need to parse the query a second time
		return nil, db.Reads{}
	}
	r, err := db.QueryReads(apl)
	if err != nil {
		return nil, r // the engine reports the error
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*placeFile
	for name, f := range s.files {
		if r.AnyTable || slices.Contains(r.Tables, name) {
			out = append(out, f)
		}
	}
	return out, r
}

// PartialCode is the code of the message a result read from only the
// start of its files carries (QueryOptions.Prefix).
const PartialCode = "partial"

// queryInPlace runs req over the in-place files it names. A query naming
// a field that the lines read so far lack looks for it through the whole
// file once (learnFields) and runs again if that found any field.
//
// prefix, when positive, reads each file only up to that byte, here
// alone and without looking further for fields: a partial answer that
// says so.
func (s *Session) queryInPlace(ctx context.Context, req *db.Request, files []*placeFile, r db.Reads, prefix int64) (*db.TabularResult, error) {
	keep := "*"
	if r.Keep != nil {
		keep = "apl:" + req.APL
	}
	if prefix <= 0 {
		s.mu.Lock()
		req.Distribute = s.helpers
		s.mu.Unlock()
	}
	for try := 0; ; try++ {
		req.Streams = map[string]db.TableStream{}
		var read, total int64
		for _, f := range files {
			f.failed.Take()
			f.rows.Store(0)
			to := f.size
			if prefix > 0 {
				to = min(f.size, prefix)
			}
			read, total = read+to, total+f.size
			req.Streams[f.name] = &fileStream{ctx: ctx, f: f, keep: keep, to: to, partial: to < f.size}
		}
		res, err := s.db.Query(ctx, req)
		var qe *db.QueryError
		if try == 0 && prefix <= 0 && errors.As(err, &qe) && qe.Kind == "semantic" && r.Mentions != nil {
			found, lerr := learnFields(ctx, files, req.APL, r.Mentions)
			if lerr != nil {
				return nil, errors.Join(err, lerr)
			}
			if found {
				continue
			}
		}
		if err != nil {
			return nil, err
		}
		if read < total {
			res = res.WithMessage(db.Message{Priority: "info", Count: 1, Code: PartialCode,
				Msg: fmt.Sprintf("partial: the lines in the first %d of %d bytes", read, total)})
			res.Partial = true // a copy: WithMessage leaves a cached result alone
		}
		for _, f := range files {
			if _, full := f.cache.stats(); full && prefix <= 0 {
				res = res.WithMessage(db.Message{Priority: "info", Count: 1, Code: NotCachedCode,
					Msg: fmt.Sprintf("%s: its columns do not all fit in this engine's memory (%d MiB): the rest is read from the file again by every query", f.name, cacheLimit>>20)})
			}
			if n, first := f.failed.Take(); n > 0 {
				res = res.WithMessage(db.Message{Priority: "warn", Count: n, Code: "decode_failed",
					Msg: fmt.Sprintf("%s: %d lines could not be read, first: %s", f.name, n, first)})
			}
		}
		return db.Tabular(res), nil
	}
}

// learnFields reads every line of the files, keeping only the fields
// mentions names, and adds the fields found to what the files know; it
// reports whether it found any they did not know. A file already read in
// vain for the same query text is not read again.
func learnFields(ctx context.Context, files []*placeFile, apl string, mentions func(string) bool) (bool, error) {
	found := false
	for _, f := range files {
		f.mu.Lock()
		done := f.fruitless[apl]
		f.mu.Unlock()
		if done {
			continue
		}
		before := len(f.keys())
		rd := f.pieceReader(ctx, 0, f.size, nil)
		rd.opts.Keep = mentions
		for {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			c, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return false, err
			}
			rows, err := c.Decode()
			if err != nil {
				return false, err
			}
			f.learn(rows.Keys)
		}
		f.failed.Take()
		if len(f.keys()) > before {
			found = true
			continue
		}
		f.mu.Lock()
		f.fruitless[apl] = true
		f.mu.Unlock()
	}
	return found, nil
}

// RunFragment runs a fragment another engine of the tab sent for a piece
// of a file read in place here (SetHelpers), and returns its answer.
func (s *Session) RunFragment(ctx context.Context, frag []byte) ([]byte, error) {
	var f db.Fragment
	if err := json.Unmarshal(frag, &f); err != nil {
		return nil, fmt.Errorf("fragment: %w", err)
	}
	return s.db.RunStreamFragment(ctx, &f, func(dataset, piece string) (db.TableStream, error) {
		pf := s.file(dataset)
		if pf == nil {
			return nil, fmt.Errorf("%s: %w", dataset, errNotInPlace)
		}
		pf.rows.Store(0)
		return pf.piece(ctx, piece)
	})
}

// RowsRead is how many rows the running query (or fragment) has decoded
// from the files read in place, for its progress.
func (s *Session) RowsRead() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, f := range s.files {
		n += f.rows.Load()
	}
	return n
}
