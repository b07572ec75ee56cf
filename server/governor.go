package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/db"
)

// The memory governor (issue 25, item 2). One budget for the whole
// process, -memory-budget, keeps the server's RSS near what it is given
// whatever mix of queries arrives. The result cache's bound and a base
// for the runtime are set aside first (newGovernorFor); the rest is
// shared by the running queries and the decoded-column cache, which holds
// only what the queries leave and gives it back as soon as a query needs
// it (issue 29): a query is never refused for columns kept for later.
// Ingest requests draw on the same pool for the bodies they decode
// (governor_ingest.go). A query reserves its start (queryReservation)
// before it runs and then grows its reservation each time its own budget
// (core/exec/budget.go, -query-memory) charges past what it holds; every
// byte comes back when the query ends, whatever ended it. A query the
// pool cannot admit waits a few seconds for running ones to finish, then
// gets 429 with Retry-After; a running query the pool cannot grow fails
// alone, and the server stays up.

const (
	// rssPerCharged converts what a query's budget charges into the
	// resident memory it reserves. The charges count slices by capacity,
	// strings by their bytes and every batch an operator keeps or a
	// stage builds (core/exec/memcharge.go), and they count generously:
	// one query of each heavy shape of the cgroup test, alone and with
	// the collector at GOGC=10, peaked at 0.35-0.54 bytes of live heap
	// per byte charged (mv-expand 51 MB live for about 116 MB charged,
	// summarize 111 MB for 226 MB). One byte reserved per byte charged
	// so leaves the collector twice the live heap, and the soft limit
	// (90% of the budget) keeps it there when the pool is full. At 2 a
	// light summary (1 MB of heap) reserved 40 MB, not 24
	// (TestLightSummariesShareThePool).
	rssPerCharged = 1
	// queryBaseBytes is what any query holds before it charges anything:
	// a batch per worker in flight, the plan, the answer being written.
	queryBaseBytes = 8 << 20
	// parseBytesPerByte is the memory the parser, the planner and the
	// compiled expressions take per byte of APL text; none of it is
	// charged to the query's budget. A 1 MB chain of 70,000 or-ed
	// comparisons peaked at 355 MB of RSS on its own (collector slack
	// included, no soft limit).
	parseBytesPerByte = 200
	// memoryWait is how long a query waits for memory before it gets 429.
	memoryWait = 5 * time.Second
)

// memGovernor shares the query pool among the running queries.
type memGovernor struct {
	pool int64 // bytes of RSS the running queries may hold together
	// wait and ingestWait are how long a query and an ingest request
	// wait for memory before they are refused.
	wait, ingestWait time.Duration
	mu               sync.Mutex
	held             int64
	// peak is the most the queries and ingests have held at once.
	peak int64
	// freed is closed, and replaced, whenever bytes come back, to wake
	// the queries waiting for them.
	freed chan struct{}
	// waiting, when set, is told each time a query starts to wait (tests).
	waiting func()
	// leases are the running queries' reservations, by admission order,
	// and pressed is set while the process is over its budget whatever
	// the reservations say (governor_watch.go).
	leases  map[*memLease]uint64
	seq     uint64
	pressed bool
	watch   watchState
	// cache, when set, is the column cache lent what held leaves of the
	// pool; heldNow mirrors held for it, which must not take mu.
	cache   *db.ColumnCache
	heldNow atomic.Int64
}

func newMemGovernor(pool int64, wait time.Duration) *memGovernor {
	return &memGovernor{pool: pool, wait: wait, ingestWait: ingestWait, freed: make(chan struct{}), leases: map[*memLease]uint64{}}
}

// take reserves n bytes if the pool has them (and, for a query not yet
// started, if the process is not over its budget); otherwise it returns
// a channel closed at the next release.
func (g *memGovernor) take(n int64, starting bool) (bool, <-chan struct{}) {
	g.mu.Lock()
	// Pressure holds new queries back only while some are running:
	// with none, what keeps the process over its budget is not a
	// query's, and refusing every query would not bring it down.
	if g.held+n <= g.pool && !(starting && g.pressed && len(g.leases) > 0) {
		g.held += n
		g.peak = max(g.peak, g.held)
		g.heldNow.Store(g.held)
		g.mu.Unlock()
		g.yieldCache()
		return true, nil
	}
	freed := g.freed
	g.mu.Unlock()
	return false, freed
}

// cacheRoom is what the column cache may hold: the pool less what the
// running queries have reserved.
func (g *memGovernor) cacheRoom() int64 { return g.pool - g.heldNow.Load() }

// yieldCache evicts the cached columns the queries' reservations no
// longer leave room for.
func (g *memGovernor) yieldCache() {
	if g.cache == nil {
		return
	}
	if room := g.cacheRoom(); g.cache.Used() > room {
		g.cache.ShrinkTo(room)
	}
}

// give returns n bytes to the pool and wakes the waiting queries.
func (g *memGovernor) give(n int64) {
	if n == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held -= n
	g.heldNow.Store(g.held)
	close(g.freed)
	g.freed = make(chan struct{})
}

// peakUse is the most the running queries and ingests have held at
// once since the server started.
func (g *memGovernor) peakUse() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak
}

// inUse is what the running queries hold.
func (g *memGovernor) inUse() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// admit reserves n bytes for a query about to start, waiting at most
// g.wait for them; release the lease when the query ends. A nil governor
// admits everything (a server without -memory-budget).
func (g *memGovernor) admit(ctx context.Context, n int64) (*memLease, error) {
	if g == nil {
		return nil, nil
	}
	if n > g.pool {
		return nil, g.tooBig(n)
	}
	return g.reserve(ctx, n, g.wait, false)
}

// reserve takes n bytes for a new lease, waiting at most wait for them;
// ingest says whose the lease is, for the error.
func (g *memGovernor) reserve(ctx context.Context, n int64, wait time.Duration, ingest bool) (*memLease, error) {
	var timeout <-chan time.Time
	for {
		ok, freed := g.take(n, true)
		if ok {
			l := &memLease{g: g, held: n}
			g.mu.Lock()
			g.seq++
			g.leases[l] = g.seq
			g.mu.Unlock()
			return l, nil
		}
		if g.waiting != nil {
			g.waiting()
		}
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-freed:
		case <-timeout:
			return nil, &outOfMemoryError{retry: true, ingest: ingest, pool: g.pool, inUse: g.inUse(), need: n}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// tooBig is the error of a query that needs more than the whole pool.
func (g *memGovernor) tooBig(n int64) error {
	return &outOfMemoryError{pool: g.pool, need: n}
}

// memLease is one query's reservation; it implements db.MemoryLease.
type memLease struct {
	g    *memGovernor
	mu   sync.Mutex
	held int64
	// peak is the most the queries and ingests have held at once.
	peak int64
	done bool
	// stop cancels the query, with the governor's error as the cause,
	// when the process is over its budget and this query is shed
	// (stopped: it was). Both are the governor's, under its lock.
	stop    context.CancelCauseFunc
	stopped bool
}

// Grow reserves the RSS that n more charged bytes cost, without waiting:
// every running query may be growing, so one that waited could wait for
// the others forever.
func (l *memLease) Grow(n int64) error {
	need := n * rssPerCharged
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return nil // the query's answer is already out; nothing to hold
	}
	if l.held+need > l.g.pool {
		return l.g.tooBig(l.held + need)
	}
	if ok, _ := l.g.take(need, false); !ok {
		return &outOfMemoryError{retry: true, pool: l.g.pool, inUse: l.g.inUse(), need: need}
	}
	l.held += need
	return nil
}

// release gives the lease's bytes back; it is safe to call more than
// once, and on a nil lease.
func (l *memLease) release() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		l.done = true
		l.g.mu.Lock()
		delete(l.g.leases, l)
		l.g.mu.Unlock()
		l.g.give(l.held)
	}
}

// queryReservation is what a query reserves before it starts: its base
// and what parsing and planning its text will take.
func queryReservation(apl string) int64 {
	return queryBaseBytes + int64(len(apl))*parseBytesPerByte
}

// outOfMemoryError is a query the process's memory budget could not
// cover: retry when other queries hold the memory it needs (429), not
// when it alone needs more than the whole pool (432).
type outOfMemoryError struct {
	retry, shed, ingest bool
	pool, inUse, need   int64
}

func (e *outOfMemoryError) Error() string {
	if e.ingest {
		return fmt.Sprintf("the server is out of memory for ingest: running queries and ingest requests hold %d MB of its %d MB (-memory-budget) and this request needs %d MB to decode its body; retry shortly", e.inUse>>20, e.pool>>20, max(e.need>>20, 1))
	}
	if e.shed {
		return fmt.Sprintf("the server is out of query memory: it holds %d MB, at the edge of its budget of %d MB (-memory-budget), so the newest query was stopped; retry shortly", e.inUse>>20, e.pool>>20)
	}
	if !e.retry {
		return fmt.Sprintf("the query needs more than the %d MB the server has for all its queries (-memory-budget); narrow the time range, filter earlier or group by fewer distinct values", e.pool>>20)
	}
	return fmt.Sprintf("the server is out of query memory: running queries hold %d MB of its %d MB (-memory-budget) and this query needs %d MB more; retry shortly", e.inUse>>20, e.pool>>20, max(e.need>>20, 1))
}

// memoryAPIError maps an error from the governor, or a query's budget
// failing on it, to its answer; nil when err is neither.
func memoryAPIError(err error) error {
	var oe *outOfMemoryError
	if !errors.As(err, &oe) {
		return nil
	}
	if !oe.retry {
		return errorf(432, "%s", err.Error())
	}
	return &apiError{Status: http.StatusTooManyRequests, Message: err.Error(),
		Headers: [][2]string{{"Retry-After", "1"}}}
}

// processBaseBytes is set aside from the budget for what the process
// holds outside queries and caches: the runtime, metadata, connections
// and the ingest buffers of a few busy datasets.
const processBaseBytes = 96 << 20

// newGovernorFor builds the governor of cfg.MemoryBudget (nil without
// one): the budget less the result cache's bound and processBaseBytes,
// shared by the queries and the column cache of cfg.DB.
func newGovernorFor(cfg *Config) (*memGovernor, error) {
	if cfg.MemoryBudget <= 0 {
		return nil, nil
	}
	results := cacheBound(cfg.Engine.ResultCacheBytes, db.DefaultResultCacheBytes)
	pool := cfg.MemoryBudget - results - processBaseBytes
	if pool < 4*queryBaseBytes {
		return nil, fmt.Errorf("-memory-budget %d MB leaves %d MB for queries after the result cache (-result-cache: %d MB) and %d MB for the process: raise it or shrink the cache",
			cfg.MemoryBudget>>20, pool>>20, results>>20, processBaseBytes>>20)
	}
	g := newMemGovernor(pool, memoryWait)
	g.watch.budget = cfg.MemoryBudget
	if cfg.DB != nil {
		if c := cfg.DB.ColumnCache(); c != nil {
			g.cache = c
			c.SetRoom(g.cacheRoom)
		}
	}
	return g, nil
}

// cacheBound is an engine cache's bound as EngineOptions reads it.
func cacheBound(n, def int64) int64 {
	switch {
	case n < 0:
		return 0
	case n == 0:
		return def
	}
	return n
}

// admitQuery reserves the start of a query of text apl; the returned
// context carries the lease its budget grows on (and ends if the query is
// shed), and done gives the lease back (call it however the query ends).
func (s *Server) admitQuery(ctx context.Context, apl string) (context.Context, func(), error) {
	if s.gov == nil {
		return ctx, func() {}, nil
	}
	ctx, stop := context.WithCancelCause(ctx)
	lease, err := s.gov.admit(ctx, queryReservation(apl))
	if err != nil {
		stop(nil)
		if me := memoryError(ctx, err); me != nil {
			return ctx, nil, me
		}
		if context.Cause(ctx) == errClientGone {
			return ctx, nil, errorf(499, "query cancelled: %v", errClientGone)
		}
		if te := s.queryTimeoutError(err); te != nil {
			return ctx, nil, te
		}
		return ctx, nil, err
	}
	s.gov.mu.Lock()
	lease.stop = stop
	s.gov.mu.Unlock()
	return db.WithMemoryLease(ctx, lease), func() { lease.release(); stop(nil) }, nil
}

// memoryError is the answer to a query the governor refused or shed (the
// error, or the cause that ended its context, is the governor's); nil
// for any other error.
func memoryError(ctx context.Context, err error) error {
	if me := memoryAPIError(err); me != nil {
		return me
	}
	return memoryAPIError(context.Cause(ctx))
}
