package exec

import (
	"errors"
	"io"
	"sync"

	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// TableStream is a table a query reads as a stream of chunks instead of a
// stored dataset: `aplite query -in` plugs its file readers in here, so a
// file is queried in place, one chunk at a time, without being loaded
// into a store first. The core never opens files itself (it builds for
// WebAssembly); it only pulls chunks.
//
// The scan decodes chunks on its workers in parallel, runs the query's
// streaming stages over each and drops it, so memory follows the chunk
// size times the workers plus the query's own state. A take stops the
// read once it has its rows.
//
// A field's type must be known when the query is planned, but only the
// chunks tell it. The planner takes the types of Fields, or of the first
// chunk; a later chunk that widens a field (a long field that holds a
// real further on, a field first seen there) stops the run, and the query
// is planned again with the types unified as a stored dataset unifies them
// (int+real is real, any other mix dynamic) and run again from the first
// chunk. After maxReplans such restarts the query fails with
// ErrStreamSchema, and the caller should load the table instead.
type TableStream interface {
	// Fields declares the stored columns the chunks hold when the format
	// says so before any chunk is decoded (a Parquet schema); nil when only
	// decoding tells (NDJSON), and the planner decodes the first chunk.
	Fields() []store.ColKey
	// Open starts a read at the first chunk. A query opens a stream once
	// per reference to it, and again after a chunk widened a type.
	Open() (ChunkReader, error)
}

// ChunkReader yields the chunks of one read of a TableStream.
type ChunkReader interface {
	// Next returns the next chunk, or io.EOF after the last. The scan calls
	// it from one goroutine at a time and decodes chunks concurrently, so
	// Next should only cut the input, not decode it.
	Next() (Chunk, error)
	// Close ends the read, also when it stopped early.
	Close() error
}

// Chunk is one piece of a stream.
type Chunk interface {
	// Stats describes the chunk without decoding it (a Parquet row group's
	// min/max statistics), so the query's filters can skip it unread; nil
	// when unknown. The scan only reads its Rows, TimeRange and Columns.
	Stats() store.Part
	// Decode reads the chunk's rows. The scan calls it on several
	// goroutines at once, each with a different chunk.
	Decode() (*store.Rows, error)
}

// SplitStream is a TableStream that other workers can read in pieces (a
// file's byte ranges): a query with a Distribution then scans one piece
// per node, each decoding only its own bytes (fragment_stream.go).
type SplitStream interface {
	TableStream
	// Pieces describes at most n disjoint pieces that together are the
	// stream, in order, as text the runner's host turns back into a
	// stream (Piece); fewer, or one, when the stream is too small for
	// more to pay.
	Pieces(n int) []string
	// Piece returns the stream of one of the pieces Pieces described.
	Piece(desc string) (TableStream, error)
}

// ErrStreamSchema is wrapped by the error of a query over a TableStream
// whose chunks kept widening the types it was planned with.
var ErrStreamSchema = errors.New("the stream's field types kept changing")

// ErrStreamWidened stops a run whose chunk widened a planned type.
var ErrStreamWidened = errors.New("a stream chunk widened a field's type")

// StreamTable is one TableStream as the queries of one request see it:
// the types learned so far, kept across the restarts.
type StreamTable struct {
	Name string
	ts   TableStream
	// parent is the whole stream's table when this one reads a piece of
	// it (fragment_stream.go): the types a piece widens widen the
	// parent's too, so the query is planned again with them.
	parent *StreamTable
	mu     sync.Mutex
	// types are the unified types of the fields seen; known once Fields or
	// the first chunk filled them.
	types map[string]vector.Type
	known bool
	// pending is the read the planner opened to learn the types from the
	// first chunk, with that chunk decoded: the first run continues it
	// instead of decoding the chunk twice.
	pending *pendingRead
}

type pendingRead struct {
	rd    ChunkReader
	first *store.Rows
}

// StreamTables holds a request's streams by name.
type StreamTables map[string]*StreamTable

// NewStreamTables wraps a request's streams for the run that reads them.
func NewStreamTables(in map[string]TableStream) StreamTables {
	out := StreamTables{}
	for name, ts := range in {
		out[name] = &StreamTable{Name: name, ts: ts, types: map[string]vector.Type{}}
	}
	return out
}

// Close ends the reads opened for planning that no run took.
func (s StreamTables) Close() {
	for _, t := range s {
		t.mu.Lock()
		if t.pending != nil {
			t.pending.rd.Close()
			t.pending = nil
		}
		t.mu.Unlock()
	}
}

// Learn fills the types from Fields or the first chunk, once.
func (t *StreamTable) Learn() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.known {
		return nil
	}
	if fs := t.ts.Fields(); fs != nil {
		for _, k := range fs {
			t.widenLocked(k)
		}
		t.known = true
		return nil
	}
	rd, err := t.ts.Open()
	if err != nil {
		return err
	}
	c, err := rd.Next()
	if err == io.EOF {
		t.known = true
		return rd.Close()
	}
	var rows *store.Rows
	if err == nil {
		rows, err = c.Decode()
	}
	if err != nil {
		rd.Close()
		return err
	}
	for _, k := range rows.Keys {
		t.widenLocked(k)
	}
	t.known = true
	t.pending = &pendingRead{rd: rd, first: rows}
	return nil
}

// widenLocked unifies k into the types and reports whether they changed.
func (t *StreamTable) widenLocked(k store.ColKey) bool {
	cur, ok := t.types[k.Name]
	if ok && unifyTypes(cur, k.Type) == cur {
		return false
	}
	if ok {
		t.types[k.Name] = unifyTypes(cur, k.Type)
	} else {
		t.types[k.Name] = k.Type
	}
	return true
}

// Plan returns the schema to plan with and a copy of the types it holds.
func (t *StreamTable) Plan() (Schema, map[string]vector.Type) {
	t.mu.Lock()
	defer t.mu.Unlock()
	types := make(map[string]vector.Type, len(t.types))
	names := make([]string, 0, len(t.types))
	for n, ty := range t.types {
		types[n] = ty
		names = append(names, n)
	}
	return datasetSchema(names, types), types
}

// open returns the read the planner left, or a new one.
func (t *StreamTable) open() (ChunkReader, *store.Rows, error) {
	t.mu.Lock()
	p := t.pending
	t.pending = nil
	t.mu.Unlock()
	if p != nil {
		return p.rd, p.first, nil
	}
	rd, err := t.ts.Open()
	return rd, nil, err
}

// check records the types of rows and reports errStreamWidened when they
// do not fit the types the query was planned with.
func (t *StreamTable) check(planned map[string]vector.Type, rows *store.Rows) error {
	fits := true
	for _, k := range rows.Keys {
		if cur, ok := planned[k.Name]; !ok || unifyTypes(cur, k.Type) != cur {
			fits = false
			break
		}
	}
	if fits {
		return nil
	}
	for u := t; u != nil; u = u.parent {
		u.mu.Lock()
		for _, k := range rows.Keys {
			u.widenLocked(k)
		}
		u.mu.Unlock()
	}
	return ErrStreamWidened
}
