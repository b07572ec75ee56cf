package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The collector's allowance is GOGC percent of the heap the cache does
// not hold, never less than the floor: a heap that is mostly cache is
// collected more often, one that holds no cache as GOGC says.
func TestGCPercentLeavesTheCacheOut(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, held int64
		percent    int
		want       int
	}{
		{200 * mb, 0, 100, 100},        // no cache: GOGC as set
		{300 * mb, 100 * mb, 100, 66},  // 200 MB of garbage allowed, not 300
		{400 * mb, 300 * mb, 100, 25},  // 100 of 400
		{400 * mb, 390 * mb, 100, 16},  // the floor: 64 MB of 400
		{100 * mb, 90 * mb, 100, 64},   // the floor: 64 MB of 100
		{10 * mb, 0, 100, 100},         // a small heap: never above GOGC
		{400 * mb, 200 * mb, 50, 25},   // GOGC 50 of the 200 MB outside the cache
		{0, 0, 100, 100},               // nothing collected yet
		{100 * mb, 150 * mb, 100, 64},  // the cache counted above the live heap (freed since)
		{1 << 40, 1<<40 - mb, 100, 10}, // a huge cache: still collected at least every 10%
	} {
		if got := gcPercentFor(c.live, c.held, c.percent, gcFloorBytes); got != c.want {
			t.Errorf("live %d MB, cache %d MB, GOGC %d: %d%%, want %d%%", c.live/mb, c.held/mb, c.percent, got, c.want)
		}
	}
}

// A running target sets GOGC after the collections that follow, from
// what the cache holds then, and stopping it gives GOGC back.
func TestGCTargetFollowsTheCache(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	// A cache that claims the whole live heap leaves only the floor,
	// here a byte, so the test's small heap is enough.
	stop := startGCTarget(func() int64 { return 1 << 40 }, 1)
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() == 100 && time.Now().Before(deadline) {
		runtime.GC()
		runtime.Gosched()
	}
	if p := gcPercent(); p == 100 || p < gcMinPercent {
		t.Fatalf("GOGC %d after collections with the heap all cache, want below 100 and at least %d", p, gcMinPercent)
	}
	stop()
	if p := gcPercent(); p != 100 {
		t.Errorf("GOGC %d after stop, want 100 back", p)
	}
}

// GOGC in the environment is the user's choice: the target leaves it.
func TestGCTargetLeavesAChosenGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "100")
	stop := startGCTarget(func() int64 { return 1 << 40 }, 1)
	defer stop()
	for range 3 {
		runtime.GC()
	}
	if p := gcPercent(); p != 100 {
		t.Errorf("GOGC %d with GOGC=100 in the environment", p)
	}
}

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
