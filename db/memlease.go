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
