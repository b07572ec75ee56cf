package exec

import (
	"errors"
	"fmt"
	"time"

	"github.com/aplite/aplite/core/store"
)

// Catalog resolves the datasets a query reads.
type Catalog interface {
	// Snapshot returns the current parts of a dataset, or an error
	// wrapping store.ErrNotFound.
	Snapshot(name string) (*store.Snapshot, error)
	// Names lists every dataset, sorted (for union wildcards and search).
	Names() []string
}

// VirtualField is a named APL expression evaluated at query time as if the
// query began with `| extend Name = Expression`.
type VirtualField struct {
	Name       string
	Expression string
}

// Request is one APL query with its options.
type Request struct {
	APL string
	// Start and End bound _time to [Start, End); zero means unbounded.
	Start, End time.Time
	// Variables are extra named values usable in the APL; a let of the same
	// name wins.
	Variables map[string]any
	// Now fixes now() and ago(); zero means time.Now().
	Now time.Time
	// VirtualFields per dataset name.
	VirtualFields map[string][]VirtualField
	// Allowed reports whether the caller may read a dataset; nil allows
	// every dataset. Denied datasets fail the query with *ForbiddenError,
	// including those reached through union, join or wildcards.
	Allowed func(dataset string) bool
	// DefaultLimit caps raw (non-aggregated) results: a positive value is
	// the request's limit, which also caps the query's own take or limit;
	// 0 means 1000 when the query sets no limit of its own (the answer
	// then warns when it left rows out); negative means no cap.
	DefaultLimit int
	// MaxRows is the server's maximum of rows in an event result, over
	// any limit the query or the request sets; 0 means none. A result it
	// shortens is marked partial.
	MaxRows int
	// Cursor and IncludeCursor continue a previous result (row ids).
	Cursor        string
	IncludeCursor bool
	// DisableCache bypasses the result cache (queryOptions.disableCache,
	// ?nocache=true). Decoded columns are still cached: that cache only
	// saves decoding work and can never change an answer.
	DisableCache bool
	// NoColumnCache also bypasses the decoded-column cache, so every part
	// is decoded afresh (benchmarks of cold reads, tests).
	NoColumnCache bool
	// Distribute, when set, spreads the scan over query nodes (fragment.go).
	Distribute *Distribution
	// Workers is the scan parallelism; 0 means GOMAXPROCS.
	Workers int
	// ExternalData fetches a URL for the externaldata operator; nil
	// disables the operator. The server supplies one that only reads URLs
	// on its allow-list (the core itself never touches the network).
	ExternalData func(url string) ([]byte, error)
	// MemoryBudget caps the bytes a query may hold in hash tables and
	// sorts; 0 means the engine default.
	MemoryBudget int64
	// Catalog, when set, replaces the engine's catalog for this query: a
	// server hosting several tenants gives each query only its tenant's
	// datasets, while the caches stay shared (they are keyed by part ids,
	// unique in the process, so they never mix tenants' data).
	Catalog Catalog
	// Streams are tables read in place, chunk by chunk (TableStream); a
	// name here hides a dataset of the same name. Queries over streams
	// are never answered from the result cache.
	Streams map[string]TableStream
}

// QueryError is a syntax or semantic error at a position in the APL text.
type QueryError struct {
	Line, Col int
	Msg       string
	// Kind is "syntax" or "semantic".
	Kind string
	// Err is the cause when there is one (store.ErrNotFound for an
	// unknown dataset, so the API answers 404).
	Err error
}

func (e *QueryError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Unwrap returns the cause.
func (e *QueryError) Unwrap() error { return e.Err }

// ForbiddenError is returned when a query reads a dataset the caller may
// not read.
type ForbiddenError struct{ Dataset string }

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("not allowed to query dataset %q", e.Dataset)
}

// ErrMemoryExceeded is wrapped by errors of queries that passed their
// memory budget (the API answers 432).
var ErrMemoryExceeded = errors.New("query memory budget exceeded")

// errDatasetNotFound is wrapped by errors of queries naming an unknown
// dataset (the API answers 404).
var errDatasetNotFound = store.ErrNotFound
