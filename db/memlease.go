package db

import (
	"context"

	"github.com/aplite/aplite/core"
	"github.com/aplite/aplite/core/exec"
)

// The engine caches' bounds when EngineOptions leaves them at zero; the
// server's memory budget sets them aside before it shares the rest.
const (
	DefaultColumnCacheBytes = core.DefaultColumnCacheBytes
	DefaultResultCacheBytes = core.DefaultResultCacheBytes
)

// MemoryLease is one query's share of a memory budget the whole process
// shares: the engine asks it for every byte the query's own budget
// charges past what it was granted (server/governor.go makes them).
type MemoryLease = exec.MemoryLease

// WithMemoryLease returns ctx carrying l, so that the queries and
// fragments run under ctx draw their memory from l.
func WithMemoryLease(ctx context.Context, l MemoryLease) context.Context {
	return exec.WithMemoryLease(ctx, l)
}

// ColumnCache is the engine's cache of decoded columns: the server's
// memory governor lends it what queries leave of the budget and takes it
// back when a query needs it (core/exec/colcache_room.go).
type ColumnCache = exec.ColCache

// ColumnCache returns the engine's column cache; nil when it keeps none.
func (d *DB) ColumnCache() *ColumnCache { return d.eng.ColumnCache() }
