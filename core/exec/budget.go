package exec

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// defaultMemoryBudget bounds what one query may hold in hash tables,
// sorts and collected rows when the request does not say.
const defaultMemoryBudget = 2 << 30

// leaseStep is the least a query's budget asks its lease for at a time,
// so that a query growing by small charges does not take the
// process-wide lock on every batch.
const leaseStep = 16 << 20

// MemoryLease is one query's share of a memory budget the whole process
// shares (the server's governor; the core itself never learns how much
// memory the machine has). Grow asks for n more bytes of payload, as the
// budget counts them, and fails when the process cannot spare them; the
// error is the query's, so it should say that the server, not the query,
// is out of memory. The lease is given back by whoever made it, when the
// query ends, not through this interface.
type MemoryLease interface {
	Grow(n int64) error
}

type leaseKey struct{}

// WithMemoryLease returns ctx carrying l: every run started under the
// context draws the growth of its memory budget from l.
func WithMemoryLease(ctx context.Context, l MemoryLease) context.Context {
	return context.WithValue(ctx, leaseKey{}, l)
}

// memBudget is a per-query byte counter. Operators charge it as they grow
// and the query fails with ErrMemoryExceeded, instead of taking the server
// down, once it passes the limit. The accounting is approximate by design:
// it counts payload bytes, not allocator overhead.
type memBudget struct {
	limit int64
	used  atomic.Int64
	// lease, when set, must grant every byte used past granted; granted
	// only grows (bytes charged back stay granted until the query ends,
	// which keeps the lock off the path of a query that charges and
	// releases each batch).
	lease   MemoryLease
	granted atomic.Int64
	mu      sync.Mutex
}

// NewMemBudget returns the budget of one query (limit <= 0: the default).
func NewMemBudget(limit int64) *memBudget {
	if limit <= 0 {
		limit = defaultMemoryBudget
	}
	return &memBudget{limit: limit}
}

// newQueryBudget is NewMemBudget drawing on the lease ctx carries, if any.
func newQueryBudget(ctx context.Context, limit int64) *memBudget {
	m := NewMemBudget(limit)
	if ctx != nil {
		m.lease, _ = ctx.Value(leaseKey{}).(MemoryLease)
	}
	return m
}

// Charge records n more bytes and fails once over the limit, or once the
// process's budget cannot grant them.
func (m *memBudget) Charge(n int64) error {
	if m == nil {
		return nil
	}
	used := m.used.Add(n)
	if used > m.limit {
		return fmt.Errorf("%w: the query needs more than %d MB; narrow the time range, filter earlier or group by fewer distinct values", ErrMemoryExceeded, m.limit>>20)
	}
	if m.lease != nil && n > 0 && used > m.granted.Load() {
		return m.grow(used)
	}
	return nil
}

// grow asks the lease for what used needs past what is granted.
func (m *memBudget) grow(used int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.granted.Load()
	if used <= g {
		return nil // another worker's grant covered it
	}
	ask := max(used-g, leaseStep)
	if err := m.lease.Grow(ask); err != nil {
		return fmt.Errorf("%w: %w", ErrMemoryExceeded, err)
	}
	m.granted.Store(g + ask)
	return nil
}
