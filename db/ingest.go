package db

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/store"
)

// Sniff asks Ingest to pick the body's format from its first bytes
// (ingest.Sniff); set it as ingest.Options.Format.
const Sniff ingest.Format = -1

// IngestResult is what one Ingest or IngestStream did.
type IngestResult struct {
	// Decode counts the events read and failed, with the first failures.
	ingest.Result
	// Format is the format the body was read in (after sniffing).
	Format ingest.Format
	// Append is the storage's answer for the last batch appended.
	Append AppendResult
	// Refused lists the rows, in decode order, that the field cap refused
	// (counted in Failed): a caller answering per event (the Elasticsearch
	// bulk door) must not report them stored.
	Refused []int
}

// Ingest decodes body (already decompressed) into the dataset name and
// appends the events durably before returning. opts.Format may be Sniff;
// opts.Now, when zero, is the clock. Events that fail to decode are
// counted and listed in the result, not fatal; a body that cannot be
// read at all is an error (*ingest.SyntaxError for a position in it) and
// stores nothing.
func (d *DB) Ingest(name string, body []byte, opts ingest.Options) (IngestResult, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return IngestResult{}, err
	}
	return decodeAppend(&d.fields, ds, body, opts, nil)
}

// Decode reads body into rows without storing them, for callers that
// replace a dataset only once its new contents parsed (the console's
// dropped files). opts.Format may be Sniff; opts.Now, when zero, is the
// clock.
func Decode(body []byte, opts ingest.Options) (*store.Rows, IngestResult, error) {
	if opts.Format == Sniff {
		opts.Format = ingest.Sniff(body)
	}
	if opts.Now == 0 {
		opts.Now = time.Now().UnixNano()
	}
	rows, res, err := build(opts.Now, func(b *store.RowsBuilder) (ingest.Result, error) {
		return ingest.Decode(body, opts, b)
	})
	return rows, IngestResult{Result: res, Format: opts.Format}, err
}

// build is the one "new builder, decode, finish" of every ingest path:
// decode fills the builder, and the rows are stamped with now as their
// _sysTime. A decode error discards the rows.
func build(now int64, decode func(*store.RowsBuilder) (ingest.Result, error)) (*store.Rows, ingest.Result, error) {
	b := store.NewRowsBuilder()
	res, err := decode(b)
	if err != nil {
		return nil, res, err
	}
	return b.Finish(now), res, nil
}

// decodeAppend decodes body and appends its rows; prepare, when set, sees
// the rows before they are stored.
func decodeAppend(caps *fieldCap, ds *store.Dataset, body []byte, opts ingest.Options, prepare func(*store.Rows)) (IngestResult, error) {
	rows, res, err := Decode(body, opts)
	if err != nil {
		return res, err
	}
	return appendRows(caps, ds, rows, res, prepare)
}

// appendRows is the one append of every ingest path: rows decoded without
// error are stored durably, after prepare (when set) has seen them, less
// the events the field cap refuses (counted in res).
func appendRows(caps *fieldCap, ds *store.Dataset, rows *store.Rows, res IngestResult, prepare func(*store.Rows)) (IngestResult, error) {
	if rows = caps.admit(ds, rows, &res); rows.N == 0 {
		return res, nil
	}
	if prepare != nil {
		prepare(rows)
	}
	var err error
	if res.Append, err = ds.Append(rows); err != nil {
		return res, &AppendError{Err: err}
	}
	return res, nil
}

// AppendError is returned when a body was read but its events could not
// be stored (a full disk, a closed or read-only database): the caller's
// request was fine, unlike a decode error.
type AppendError struct{ Err error }

// Error says the events were not stored, and why.
func (e *AppendError) Error() string { return "storing the events: " + e.Err.Error() }

// Unwrap returns the storage's error.
func (e *AppendError) Unwrap() error { return e.Err }

// Append stores rows that a caller decoded itself (a Parquet row group, a
// saved result) durably in the dataset name.
func (d *DB) Append(name string, rows *Rows) (AppendResult, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return AppendResult{}, err
	}
	return ds.Append(rows)
}

// StreamChunk is the size of the pieces IngestStream cuts NDJSON into.
const StreamChunk = 8 << 20

// StreamProgress counts the events IngestStream has appended so far when
// it is given one; a caller may read it while the stream runs.
type StreamProgress struct{ Rows atomic.Int64 }

// StreamOptions tune IngestStream.
type StreamOptions struct {
	ingest.Options
	// Prepare, when set, sees each decoded batch before it is stored (the
	// command line's declared field types); it may be called from several
	// goroutines at once.
	Prepare func(*store.Rows)
	// Progress, when set, counts the events stored so far.
	Progress *StreamProgress
	// Enough, when set, is asked before each further chunk of NDJSON is
	// read; true ends the stream there, with what is stored so far (the
	// command line stops reading a file once `take N` has its rows).
	Enough func() bool
}

// IngestStream reads r to its end into the dataset name without holding
// it whole: NDJSON is cut into chunks of whole lines that are decoded on
// one worker per core (memory stays proportional to the chunk size and the
// workers); other formats are one document and are decoded whole. The
// dataset is flushed to blocks at the end. Failed events are counted like
// Ingest's; the first chunk that cannot be read at all stops the stream.
func (d *DB) IngestStream(name string, r io.Reader, opts StreamOptions) (IngestResult, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return IngestResult{}, err
	}
	if opts.Now == 0 {
		opts.Now = time.Now().UnixNano()
	}
	if opts.Progress == nil {
		opts.Progress = &StreamProgress{}
	}
	if opts.Format != ingest.NDJSON {
		body, err := io.ReadAll(r)
		if err != nil {
			return IngestResult{}, err
		}
		res, err := decodeAppend(&d.fields, ds, body, opts.Options, opts.Prepare)
		opts.Progress.Rows.Add(int64(res.Ingested))
		if err != nil {
			return res, err
		}
		return res, ds.Flush()
	}
	return streamNDJSON(&d.fields, ds, r, opts)
}

// streamNDJSON decodes chunks of lines on one worker per core and sums
// what they did.
func streamNDJSON(caps *fieldCap, ds *store.Dataset, r io.Reader, opts StreamOptions) (IngestResult, error) {
	chunks := make(chan []byte, 2)
	total := IngestResult{Format: ingest.NDJSON}
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for c := range chunks {
				res, err := decodeAppend(caps, ds, c, opts.Options, opts.Prepare)
				opts.Progress.Rows.Add(int64(res.Ingested))
				mu.Lock()
				total.add(res)
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	probe := opts.Enough != nil
	readErr := cutLines(r, StreamChunk, func(c []byte) bool {
		if probe {
			// The first chunk is decoded before any other is read: on a
			// fast reader every chunk would otherwise be queued before
			// the first is stored, and Enough would never see rows.
			probe = false
			res, err := decodeAppend(caps, ds, c, opts.Options, opts.Prepare)
			opts.Progress.Rows.Add(int64(res.Ingested))
			mu.Lock()
			total.add(res)
			first = err
			mu.Unlock()
			return true
		}
		if opts.Enough != nil && opts.Enough() {
			return false
		}
		chunks <- c
		return true
	})
	close(chunks)
	wg.Wait()
	switch {
	case readErr != nil:
		return total, readErr
	case first != nil:
		return total, first
	}
	return total, ds.Flush()
}

// add sums another chunk's counts into r, keeping the first failures.
func (r *IngestResult) add(o IngestResult) {
	r.Ingested += o.Ingested
	r.Failed += o.Failed
	r.ProcessedBytes += o.ProcessedBytes
	if len(r.Failures) < maxStreamFailures {
		r.Failures = append(r.Failures, o.Failures[:min(len(o.Failures), maxStreamFailures-len(r.Failures))]...)
	}
	r.Append = o.Append
}

// maxStreamFailures caps the failures a stream lists: the first few tell
// what is wrong; the count says how often.
const maxStreamFailures = 10

// cutLines reads r in chunks of about size bytes that end at a newline (a
// line longer than size makes a longer chunk) and hands each to emit,
// until emit returns false.
func cutLines(r io.Reader, size int, emit func([]byte) bool) error {
	var carry []byte
	for {
		buf := make([]byte, len(carry), size+len(carry))
		copy(buf, carry)
		n, err := io.ReadFull(r, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			return fmt.Errorf("reading the stream: %w", err)
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
		if !emit(buf[:cut]) {
			return nil
		}
	}
}

// RowsBuilder is the builder a decoder given to IngestWith fills: Begin,
// the Set methods for each field, End.
type RowsBuilder = store.RowsBuilder

// IngestWith stores in the dataset name the events decode puts into the
// builder it is given, through the same path as Ingest: the rows are
// stamped with now (zero: the clock) and appended durably before it
// returns; a decode error stores nothing. It is how a decoder that lives
// outside db (db/otlp) still takes the one ingest path.
func (d *DB) IngestWith(name string, now int64, decode func(b *RowsBuilder, now int64) (DecodeResult, error)) (IngestResult, error) {
	ds, err := d.st.Get(name)
	if err != nil {
		return IngestResult{}, err
	}
	if now == 0 {
		now = time.Now().UnixNano()
	}
	rows, res, err := build(now, func(b *store.RowsBuilder) (ingest.Result, error) { return decode(b, now) })
	if err != nil {
		return IngestResult{Result: res}, err
	}
	return appendRows(&d.fields, ds, rows, IngestResult{Result: res}, nil)
}
