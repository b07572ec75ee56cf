// Package testutil holds the helpers the tests of every package share:
// waiting for an event without a sleep standing in for it, and a clock a
// test moves by hand. It imports neither net nor fasthttp nor sonic, so
// the tests of core/ (built for js/wasm too) may use it.
package testutil

import (
	"sync"
	"testing"
	"time"
)

// Eventually calls cond until it reports true and fails t with msg when
// timeout passes first. The wait between calls grows from a millisecond
// to 50 ms, so an event that comes soon is seen soon and a slow one on a
// loaded machine does not spin a core. timeout is a bound for a machine
// under load, not the event's expected time: pick it generously.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: "+msg, append([]any{timeout}, args...)...)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// Clock is a time a test sets: Now answers the same instant until
// Advance or Set moves it. It is safe for concurrent use, so a store's
// background loops may read it while the test moves it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now is the clock's time; pass the method value where a func() time.Time
// is wanted.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
