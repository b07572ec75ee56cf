package db

import (
	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/ingest"
	"github.com/aplite/aplite/core/output"
	"github.com/aplite/aplite/core/render"
	"github.com/aplite/aplite/core/store"
	"github.com/aplite/aplite/vector"
)

// The types a caller of db names. They are aliases, not copies: a value
// crosses the front door unchanged, and the packages behind it stay free to
// grow methods that only db calls.

// Queries.
type (
	// Request is one APL query with its options (core.Request).
	Request = core.Request
	// VirtualField is a named expression a query sees as a field.
	VirtualField = core.VirtualField
	// Catalog resolves the dataset names a query reads.
	Catalog = core.Catalog
	// EngineOptions bound the query engine's caches.
	EngineOptions = core.EngineOptions
	// Output is a query's result, before rendering (Tabular, Legacy).
	Output = output.Output
	// Message is a warning or notice attached to an Output.
	Message = output.Message
	// OutputColumn is one named, typed column of an Output's table.
	OutputColumn = output.Column
	// Fragment is the part of a distributed query one node runs.
	Fragment = core.Fragment
	// Distribution tells a query which nodes share its fragments.
	Distribution = core.Distribution
	// TableStream is a table read from a file while a query runs,
	// instead of being loaded first (Request.Streams).
	TableStream = core.TableStream
	// SplitStream is a TableStream other engines can read in pieces (a
	// file's byte ranges), so a Distribution spreads its scan.
	SplitStream = core.SplitStream
	// ChunkReader reads a TableStream's chunks in order.
	ChunkReader = core.ChunkReader
	// Chunk is one piece of a TableStream: its statistics, then its rows.
	Chunk = core.Chunk
)

// Query errors.
type (
	// QueryError is an error in the query text, with its position.
	QueryError = core.QueryError
	// ForbiddenError is a query naming a dataset its caller may not read.
	ForbiddenError = core.ForbiddenError
	// CorruptionError is stored data that failed its checksum or decode.
	CorruptionError = store.CorruptionError
)

// Errors callers test for with errors.Is.
var (
	// ErrMemoryExceeded: a query needed more than its memory budget.
	ErrMemoryExceeded = core.ErrMemoryExceeded
	// ErrFragmentParts: a fragment names blocks this node does not know.
	ErrFragmentParts = core.ErrFragmentParts
	// ErrNeedsIngest: the query must run on the ingest node to include
	// its unflushed events (the server forwards it there).
	ErrNeedsIngest = core.ErrNeedsIngest
	// ErrFragmentSchema: a rest fragment's schema lacks fields of this
	// node's unflushed events.
	ErrFragmentSchema = core.ErrFragmentSchema
	// ErrStreamSchema: a TableStream's fields changed while it was read.
	ErrStreamSchema = core.ErrStreamSchema
	// ErrNotFound: no dataset of that name.
	ErrNotFound = store.ErrNotFound
	// ErrExists: a dataset of that name exists already.
	ErrExists = store.ErrExists
	// ErrReadOnly: a write to datasets this node only reads.
	ErrReadOnly = store.ErrReadOnly
	// ErrLeaseLost: another writer took this node's writer lease over
	// (core/store/OBJECTS.md): it writes nothing more to the bucket.
	ErrLeaseLost = store.ErrLeaseLost
	// ErrObjectNotFound: an ObjectStore has no object under the key.
	ErrObjectNotFound = store.ErrObjectNotFound
)

// ErrNoAnswer: a node did not answer a fragment within the per-fragment
// timeout (Distribution.Timeout).
var ErrNoAnswer = core.ErrNoAnswer

// UnreachableIngest is the status message of an answer a query node gave
// alone because its ingest node could not be reached.
var UnreachableIngest = core.UnreachableIngest

// Storage.
type (
	// StoreOptions configure the storage (flush and compaction intervals,
	// object storage).
	StoreOptions = store.Options
	// ObjectStore is the bucket sealed blocks go to.
	ObjectStore = store.ObjectStore
	// Info describes a dataset: size, fields, time range, damage.
	Info = store.Info
	// AppendResult is what storing a batch did (blocks sealed, WAL size).
	AppendResult = store.AppendResult
	// Damage is a block set aside as corrupt.
	Damage = store.Damage
	// Snapshot is the parts of a dataset a query reads.
	Snapshot = store.Snapshot
	// Rows is a decoded batch of events, column by column.
	Rows = store.Rows
	// ColKey names a stored column: a field and one of its types.
	ColKey = store.ColKey
	// Part is the statistics of a block or chunk a query may skip.
	Part = store.Part
	// ColumnMeta is one column's statistics in a Part.
	ColumnMeta = store.ColumnMeta
	// Vector is one column of values.
	Vector = vector.Vector
	// Type is the type of a field's values.
	Type = vector.Type
)

// The field types a caller declares or tests for.
const (
	Null     = vector.Null
	Bool     = vector.Bool
	Int      = vector.Int
	Float    = vector.Float
	String   = vector.String
	DateTime = vector.DateTime
	TimeSpan = vector.TimeSpan
	Dynamic  = vector.Dynamic
)

// Ingest.
type (
	// IngestOptions tune how a body is decoded (format, timestamp field,
	// CSV fields, labels, map fields, fields kept).
	IngestOptions = ingest.Options
	// Format is the encoding of an ingest body.
	Format = ingest.Format
	// Failure is one event that could not be ingested, and why.
	Failure = ingest.Failure
	// SyntaxError is a body that cannot be read in its format, with the
	// position where reading stopped.
	SyntaxError = ingest.SyntaxError
	// DecodeResult counts the events one decode read and failed.
	DecodeResult = ingest.Result
)

// The ingest body formats.
const (
	JSON   = ingest.JSON
	NDJSON = ingest.NDJSON
	CSV    = ingest.CSV
)

// Rendering: the JSON shapes the API answers with.
type (
	// TabularResult is the tabular answer of a query.
	TabularResult = render.TabularResult
	// TabularTable is one table of a tabular answer.
	TabularTable = render.TabularTable
	// TabularField is one column of a TabularTable.
	TabularField = render.TabularField
	// LegacyResult is the legacy (matches and buckets) answer of a query.
	LegacyResult = render.LegacyResult
	// Status is a query's statistics in either answer.
	Status = render.Status
	// FieldMeta describes a field of a legacy answer.
	FieldMeta = render.FieldMeta
	// LegacyEntry is one event of a legacy answer.
	LegacyEntry = render.LegacyEntry
	// LegacyBuckets is the time series of a legacy answer.
	LegacyBuckets = render.LegacyBuckets
	// LegacyInterval is one time bin of LegacyBuckets.
	LegacyInterval = render.LegacyInterval
	// LegacyEntryGroup is one group of a legacy answer's totals.
	LegacyEntryGroup = render.LegacyEntryGroup
)
