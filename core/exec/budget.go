package exec

import (
	"fmt"
	"sync/atomic"
)

// defaultMemoryBudget bounds what one query may hold in hash tables,
// sorts and collected rows when the request does not say.
const defaultMemoryBudget = 2 << 30

// memBudget is a per-query byte counter. Operators charge it as they grow
// and the query fails with ErrMemoryExceeded, instead of taking the server
// down, once it passes the limit. The accounting is approximate by design:
// it counts payload bytes, not allocator overhead.
type memBudget struct {
	limit int64
	used  atomic.Int64
}

// NewMemBudget returns the budget of one query (limit <= 0: the default).
func NewMemBudget(limit int64) *memBudget {
	if limit <= 0 {
		limit = defaultMemoryBudget
	}
	return &memBudget{limit: limit}
}

// Charge records n more bytes and fails once over the limit.
func (m *memBudget) Charge(n int64) error {
	if m == nil {
		return nil
	}
	if used := m.used.Add(n); used > m.limit {
		return fmt.Errorf("%w: the query needs more than %d MB; narrow the time range, filter earlier or group by fewer distinct values", ErrMemoryExceeded, m.limit>>20)
	}
	return nil
}
