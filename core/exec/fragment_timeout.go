package exec

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNoAnswer is a fragment's error when its node did not answer within
// the per-fragment timeout (Distribution.Timeout). A stopped process
// (SIGSTOP, a long GC pause, a hung disk) keeps its connections open and
// never refuses, so only a deadline tells it from a slow one; the query
// gives up on it and answers without it rather than waiting out its own
// budget.
var ErrNoAnswer = errors.New("did not answer")

// callNode runs d.Run for one fragment under a context that ends after
// the per-fragment timeout: d.Timeout, but never more than three
// quarters of what the query has left, so that the query outlives the
// fragment with time to answer without it.
func callNode(ctx context.Context, d *Distribution, node string, f *Fragment) ([]byte, error) {
	limit := d.Timeout
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl) * 3 / 4; limit <= 0 || left < limit {
			limit = max(left, time.Millisecond)
		}
	}
	if limit <= 0 {
		return d.Run(ctx, node, f)
	}
	fctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	body, err := d.Run(fctx, node, f)
	if err != nil && ctx.Err() == nil && fctx.Err() != nil {
		// Only the fragment's own deadline passed: say so, whatever the
		// transport made of the cancelled call.
		return nil, fmt.Errorf("%w within %s", ErrNoAnswer, roundLimit(limit))
	}
	return body, err
}

// roundLimit shows a timeout as a user set it (10s, 250ms), not with the
// nanoseconds a fraction of a deadline leaves.
func roundLimit(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
