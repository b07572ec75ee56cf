package session

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"time"

	"github.com/aplite/aplite/db"
)

// Streamed loads (issue 16): the console reads a dropped file a slice at
// a time (File.slice in a Web Worker) and hands each slice of whole
// lines to a Loader, so a file larger than the tab's memory can be
// queried: rows go into the session's store, which seals them into
// compressed blocks as they arrive. NDJSON and CSV stream; a JSON array
// or a saved tabular result is one document and loads with Load.

// Loader streams one file into a dataset.
type Loader struct {
	db     *db.DB
	name   string
	opts   db.IngestOptions
	csv    bool
	header bool // CSV: the header line has been read
	res    LoadResult
}

// BeginLoad replaces the dataset called name with an empty one that
// Chunk fills. format is NDJSON or CSV.
func (s *Session) BeginLoad(name, format string, now time.Time) (*Loader, error) {
	if err := db.ValidateName(name); err != nil {
		return nil, err
	}
	if format == Parquet {
		return nil, errors.New("a Parquet file is read by row groups, not lines: use BeginParquet")
	}
	if format != NDJSON && format != CSV {
		return nil, fmt.Errorf("%s cannot be streamed: load the whole file", format)
	}
	if now.IsZero() {
		now = s.now()
	}
	s.forget(name)
	_ = s.db.Delete(name)
	if _, err := s.db.Create(name); err != nil {
		return nil, err
	}
	return &Loader{db: s.db, name: name, csv: format == CSV,
		opts: db.IngestOptions{Format: ingestFormat(format), Now: now.UnixNano(), MaxFailures: maxFailures},
		res:  LoadResult{Dataset: name, Format: format, Failures: []db.Failure{}}}, nil
}

// Chunk decodes a slice of whole lines (the first CSV slice starts with
// the header) and appends its rows; it returns the totals so far.
func (l *Loader) Chunk(data []byte) (LoadResult, error) {
	if l.csv && !l.header {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i]
		}
		fields, err := csv.NewReader(bytes.NewReader(line)).Read()
		if err != nil {
			return l.res, fmt.Errorf("cannot read the CSV header: %w", err)
		}
		l.opts.CSVFields, l.header = fields, true
		data = data[min(len(line)+1, len(data)):]
	}
	r, err := l.db.Ingest(l.name, data, l.opts)
	if err != nil {
		return l.res, fmt.Errorf("cannot read the %s: %w", l.res.Format, err)
	}
	l.res.Ingested += r.Ingested
	l.res.Failed += r.Failed
	for _, f := range r.Failures {
		if len(l.res.Failures) < maxFailures {
			l.res.Failures = append(l.res.Failures, f)
		}
	}
	return l.res, nil
}

// End finishes the load: buffered rows become compressed blocks.
func (l *Loader) End() (LoadResult, error) {
	return l.res, l.db.Flush(l.name)
}
