package testutil

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeT records a failure instead of ending the test, so Eventually's
// own failure path can be checked.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = format
	panic(f)
}

func TestEventuallyWaitsForTheEvent(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	go func() {
		for range 5 {
			n.Add(1)
		}
	}()
	Eventually(t, 10*time.Second, func() bool { return n.Load() == 5 }, "the counter never reached 5")
}

func TestEventuallyFailsWithTheMessage(t *testing.T) {
	t.Parallel()
	f := &fakeT{TB: t}
	func() {
		defer func() {
			if r := recover(); r != f {
				panic(r)
			}
		}()
		Eventually(f, 20*time.Millisecond, func() bool { return false }, "no %s", "block")
	}()
	if !strings.Contains(f.failed, "no %s") {
		t.Fatalf("failure message %q, want the caller's", f.failed)
	}
}

func TestClockMovesOnlyWhenTold(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClock(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Now = %v, want %v", c.Now(), start)
	}
	c.Advance(time.Hour)
	if got := c.Now(); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("after Advance(1h) Now = %v", got)
	}
}
