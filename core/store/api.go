// Package store is aplite's storage engine: datasets made of a write-ahead
// log, a columnar in-memory buffer and immutable, memory-mapped block files.
//
// Writes: Dataset.Append frames a Rows batch into the WAL, fsyncs it (group
// commit: concurrent appends share one sync) and only then adds the batch
// to the in-memory buffer, where queries see it at once. Every SealRows
// rows the buffer is encoded into a compact in-memory block; after
// FlushRows rows or FlushInterval those are written as one block file and
// the WAL is truncated past it. Background compaction merges small blocks.
//
// Reads: Dataset.Snapshot returns an immutable list of Parts (blocks and
// buffered batches) that a query scans without holding any lock.
//
// Damage is kept small and never silent: recovery skips a damaged WAL
// record and keeps the intact ones after it, a block manifest makes a
// missing block file noticed, and what was lost is listed in
// Snapshot.Damaged, so a query says its answer is partial. A write that
// fails (a full disk) stores nothing and the next one retries.
//
// The on-disk formats are specified in FORMAT.md beside this file. Files
// that need os or syscall sit behind build tags with a js/wasm twin; the
// in-memory mode (OpenMemory) works everywhere.
package store

import (
	"errors"
	"time"

	"github.com/aplite/aplite/vector"
)

// Errors returned by DB methods; test with errors.Is.
var (
	ErrNotFound = errors.New("dataset not found")
	ErrExists   = errors.New("dataset already exists")
	ErrClosed   = errors.New("store is closed")
	// ErrNoSpace is wrapped by a write that failed because the disk (or
	// the user's quota) is full: nothing of it was stored, and the caller
	// may retry once space is freed.
	ErrNoSpace = errors.New("no space left on the data directory's disk")
)

// Options tune a DB. The zero value picks working defaults.
type Options struct {
	FlushRows       int           // rows buffered before a flush (default 262144)
	FlushInterval   time.Duration // max age of buffered rows (default 10s)
	CompactInterval time.Duration // how often compaction looks for work (default 2s)
	// IdleFlush flushes a dataset's buffer once no event has arrived for
	// this long (default 2s), so the WAL's raw rows become compact blocks
	// soon after an ingest stops instead of after FlushInterval.
	IdleFlush time.Duration
	// CompactIdle is how long a dataset must go without appends before
	// compaction merges every small block at once (default 3s).
	CompactIdle time.Duration
	// CompactAge is how old a full-size block must be before compaction
	// merges it while appends keep coming (default 30s): a burst keeps
	// the CPU for itself, and a live stream still gets compact blocks.
	CompactAge time.Duration
	NoSync     bool // skip fsync (benchmarks of the CPU path only)
	// SealRows is how many raw appended rows are encoded into an in-memory
	// block before the flush writes it out (default 65536, at most
	// FlushRows): it keeps buffered events compact in memory.
	SealRows int
	// Logf receives recovery notices (torn WAL tails cut, corrupt blocks
	// set aside); nil discards them.
	Logf func(format string, args ...any)
	// Objects, when set, keeps blocks and catalogs in this object store
	// instead of the data directory, which then holds only the WAL
	// (OBJECTS.md). OpenRemote needs it.
	Objects ObjectStore
	// NoSealTermFilters leaves term filters (FORMAT.md) to compaction.
	// By default the ingest path's seal builds them too, so a block is
	// searchable by its filters from the moment it is sealed (logs are
	// searched most right after they arrive), at the ingest cost
	// FORMAT.md gives.
	NoSealTermFilters bool
	// Grace is how long a block dropped from an object-storage catalog
	// stays readable for queries that still use it (default 10 minutes).
	Grace time.Duration
	// Refresh is how often a read-only DB (OpenRemote) reloads the
	// catalogs (default 2 s).
	Refresh time.Duration
	// TailInterval is how often a writer on object storage publishes the
	// events it acknowledged and has not flushed, and a read-only DB
	// reads them (OBJECTS.md, "Tails"; 0: never; the server's -tail
	// defaults to 500 ms).
	TailInterval time.Duration
	// LeaseTTL is how long the writer lease of a DB on object storage
	// lasts unrenewed (OBJECTS.md, "The writer lease"; default
	// DefaultLeaseTTL): how long a crashed writer keeps others out.
	LeaseTTL time.Duration
	// Now is the clock of the store's ages: when buffered rows are due
	// for a flush (FlushInterval, IdleFlush), when a dataset counts as
	// idle (CompactIdle), how old a block is (CompactAge) and the
	// lease's clock. Tests drive it instead of waiting; nil: time.Now.
	Now func() time.Time
	// leaseNow is the lease's clock (tests drive it); nil: Now.
	leaseNow func() time.Time
	// wrapWAL wraps every WAL segment file opened (tests inject a full
	// disk with it).
	wrapWAL func(walFile) walFile
}

// ColumnMeta describes one column of a Part, for pruning without decoding.
// Min and Max are int64 (Int, DateTime, TimeSpan), float64, string or bool;
// nil when unknown. Dict lists the distinct values of a dictionary-encoded
// string column (nil otherwise).
type ColumnMeta struct {
	Key       ColKey
	NullCount int
	Min, Max  any
	Dict      []string
	// Terms, for string columns of compacted blocks, tells whether a term
	// may occur in the column (no false negatives); nil when unknown.
	Terms *TermFilter
}

// Part is an immutable, scannable piece of a dataset: one block file or one
// batch of the in-memory buffer. Its columns include _time and _sysTime as
// DateTime columns. Parts are safe for concurrent reads.
type Part interface {
	// ID is stable for the life of the part (used as a cache key).
	ID() string
	// Rows is the number of events in the part.
	Rows() int
	// TimeRange is the min and max _time in ns.
	TimeRange() (min, max int64)
	// Columns describes every stored column (several per field name when
	// the field holds several types).
	Columns() []ColumnMeta
	// ReadColumn decodes a whole column; nil, nil when the part lacks it.
	// Corruption is a *CorruptionError.
	ReadColumn(k ColKey) (*vector.Vector, error)
	// Immutable is true for block files, false for buffered batches.
	Immutable() bool
}

// PagedPart is a Part whose large columns may be stored in pages of rows
// (FORMAT.md, block version 4), so a scan that needs some rows of a block
// decodes only the pages holding them. Block parts implement it.
type PagedPart interface {
	Part
	// PageRows is how many rows each page of column k holds (the last
	// may hold fewer); 0 when the column is one page or absent.
	PageRows(k ColKey) int
	// ReadPages decodes pages [first, last] of column k, one vector per
	// page, reading only their bytes. Corruption is a *CorruptionError
	// at the damaged page's offset.
	ReadPages(k ColKey, first, last int) ([]*vector.Vector, error)
}

// Snapshot is the set of parts of one dataset at one moment. It pins the
// block files it lists (they stay readable even if compaction or trim
// replaces them) until Release; a snapshot never released keeps them
// mapped until the DB closes.
type Snapshot struct {
	Dataset string
	Parts   []Part
	// Damaged lists the blocks of the dataset set aside as corrupt: a
	// query over the snapshot is missing their rows and must say so.
	Damaged []Damage
	release func()
}

// Damage is a block (or WAL segment) found corrupt and set aside. Name is
// the file's name inside the dataset, never a full path: it reaches API
// answers.
type Damage struct {
	Name   string    `json:"name"`
	Reason string    `json:"reason"`
	Found  time.Time `json:"found"`
}

// Release unpins the snapshot's blocks. Parts must not be read afterwards
// (a read then returns an error wrapping ErrClosed, never garbage). Calling
// it more than once is harmless.
func (s *Snapshot) Release() {
	if s != nil && s.release != nil {
		s.release()
		s.release = nil
	}
}

// AppendResult tells the caller what an append did.
type AppendResult struct {
	BlocksCreated int   // blocks flushed as a direct result of this append
	WALLength     int64 // records in the WAL after the append
}

// Info summarises a dataset.
type Info struct {
	Name            string
	Created         time.Time
	NumEvents       int64
	NumBlocks       int
	InputBytes      int64
	CompressedBytes int64
	MinTime         int64
	MaxTime         int64
	Fields          []ColKey
	Damaged         []Damage
}

// CorruptionError reports damaged stored data: which file and where.
type CorruptionError struct {
	File   string
	Offset int64
	Reason string
}

func (e *CorruptionError) Error() string {
	return "corrupt " + e.File + " at offset " + itoa(e.Offset) + ": " + e.Reason
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
