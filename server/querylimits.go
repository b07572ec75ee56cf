package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Query limits (issue 12, item 6). Every query runs under its own
// context, not fasthttp's RequestCtx (whose Done fires only at server
// shutdown, and which must not outlive the handler): the context carries
// the query's time budget and is cancelled when the server shuts down.
// A semaphore caps the queries running at once; a query that finds no
// slot waits in line for a while, then gets 429 with the clients'
// rate-limit headers and a Retry-After. fasthttp gives a handler no
// signal when its client hangs up, so a dropped connection stops its
// query only at the deadline.

// queryGate bounds concurrent queries.
type queryGate struct {
	slots chan struct{}
	wait  time.Duration
}

func newQueryGate(n int, wait time.Duration) *queryGate {
	return &queryGate{slots: make(chan struct{}, n), wait: wait}
}

// enter takes a slot, waiting at most g.wait; the returned func frees it.
func (g *queryGate) enter(ctx context.Context) (func(), error) {
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	default:
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-t.C:
		n := cap(g.slots)
		return nil, &apiError{Status: http.StatusTooManyRequests,
			Message: fmt.Sprintf("too many queries running: at most %d at once (-max-queries); retry shortly", n),
			Headers: [][2]string{{"X-QueryLimit-Limit", itoa(int64(n))}, {"X-QueryLimit-Remaining", "0"},
				{"X-QueryLimit-Reset", itoa(time.Now().Add(time.Second).Unix())}, {"Retry-After", "1"}}}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// queryContext is the context one query runs under: the server's life,
// bounded by the query time budget.
func (s *Server) queryContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.life, s.cfg.QueryTimeout)
}

// queryTimeoutError explains a query stopped by its budget or shutdown.
func (s *Server) queryTimeoutError(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return badRequest("query stopped after %s, its time budget (-query-timeout): narrow the time range or the query", s.cfg.QueryTimeout)
	case errors.Is(err, context.Canceled):
		return errorf(http.StatusServiceUnavailable, "query cancelled: the server is shutting down")
	}
	return nil
}
