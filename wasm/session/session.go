package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/aplite/aplite/db"
)

// Session holds the datasets of one browser tab and the engine that
// queries them. It is safe for concurrent use, though the browser calls
// it from one thread.
type Session struct {
	db *db.DB
	// now is the clock for ingest times and now(); tests fix it.
	now func() time.Time

	mu      sync.Mutex
	sources map[string]*parquetSource // datasets with Parquet columns still to load
	files   map[string]*placeFile     // datasets read in place (place.go)
	// helpers, when set, spreads scans of files read in place over other
	// engines (SetHelpers).
	helpers *db.Distribution
}

// New returns an empty session.
func New() *Session {
	return &Session{db: db.OpenMemory(db.Options{Store: db.StoreOptions{NoSync: true}}), now: time.Now,
		sources: map[string]*parquetSource{}, files: map[string]*placeFile{}}
}

// QueryOptions are the per-query settings the console passes along with
// the APL text. Zero times mean unbounded (Start, End) or the clock (Now).
type QueryOptions struct {
	Start, End, Now time.Time
	// Prefix, when positive, reads files opened in place only up to that
	// byte (the lines that start before it), here alone: a quick partial
	// answer to show while the whole file is read (issue 26). Its result
	// says so in a "partial" message.
	Prefix int64
}

// Query runs apl over the session's datasets. Errors in the query text
// are *db.QueryError, which carries the line and column to mark. Files
// opened in place are read while it runs (place.go).
func (s *Session) Query(ctx context.Context, apl string, o QueryOptions) (*db.TabularResult, error) {
	if !o.Start.IsZero() && !o.End.IsZero() && o.End.Before(o.Start) {
		return nil, errors.New("the end of the time range is before its start")
	}
	now := o.Now
	if now.IsZero() {
		now = s.now()
	}
	// One worker: the browser runs Go on one thread, so fanning a scan out
	// to goroutines only adds scheduling.
	req := &db.Request{APL: apl, Start: o.Start, End: o.End, Now: now, Workers: 1}
	files, keep := s.placeStreams(apl)
	if len(files) == 0 {
		res, err := s.db.Query(ctx, req)
		if err != nil {
			return nil, err
		}
		return db.Tabular(res), nil
	}
	return s.queryInPlace(ctx, req, files, keep, o.Prefix)
}

// Drop removes a dataset. Dropping one that does not exist is an error
// wrapping db.ErrNotFound.
func (s *Session) Drop(name string) error {
	inPlace := s.file(name) != nil
	s.forget(name)
	if inPlace {
		return nil
	}
	return s.db.Delete(name)
}
