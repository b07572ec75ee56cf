package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's target (issue 29). Go lets the heap grow by GOGC
// percent of what the last collection found live before it collects
// again, so at the default 100 every byte of decoded columns the column
// cache holds lets another byte of garbage pile up: at 10M events the
// cache's 400 MB took the query-only peak to about 950 MB of RSS. The
// cache is long-lived and holds no pointers, so collecting more often
// because of it costs little; gcTarget therefore gives the collector
// GOGC percent of the rest of the heap (the queries' working memory) as
// its allowance, and at least gcFloorBytes, instead of GOGC percent of
// the whole. It is re-set after every collection, from what that
// collection found live and what the cache held then.
type gcTarget struct {
	held    func() int64 // bytes the column cache holds
	percent int          // GOGC for the rest of the heap
	floor   int64        // least garbage allowed (gcFloorBytes)
	mu      sync.Mutex
	stopped bool
	last    int // the GOGC last set, to set it only when it changes
}

const (
	// gcFloorBytes is the least garbage allowed between collections:
	// below it a query's own decoding (tens of MB a block) starts a
	// collection every few blocks, each marking the cache's string
	// dictionaries again. At 32 MB the 10M q5 and q7 (uri) took twice
	// their time; 64 MB left the peak where it was (440-476 MB).
	gcFloorBytes = 64 << 20
	// gcMinPercent bounds how often a heap that is nearly all cache is
	// collected.
	gcMinPercent = 10
)

// startGCTarget starts adjusting GOGC for a server whose column cache
// holds held() bytes, allowing at least floor bytes of garbage (the
// server: gcFloorBytes). It does nothing when the user chose GOGC (the
// environment), since then the collector does as told; stop ends it and
// gives GOGC back.
func startGCTarget(held func() int64, floor int64) (stop func()) {
	if os.Getenv("GOGC") != "" || held == nil {
		return func() {}
	}
	return (&gcTarget{held: held, percent: 100, floor: floor}).start()
}

// start arms t and returns what stops it.
func (t *gcTarget) start() (stop func()) {
	t.last = t.percent
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.stopped = true
		debug.SetGCPercent(t.percent)
	}
}

// gcSentinel is unreachable as soon as it is made: its cleanup runs once
// after the next collection. It is larger than the tiny allocator's 16
// bytes, whose blocks may never be freed alone.
type gcSentinel struct{ _ [4]int64 }

// arm runs adjust after the next collection, and arms again.
func (t *gcTarget) arm() {
	runtime.AddCleanup(new(gcSentinel), func(t *gcTarget) {
		if t.adjust() {
			t.arm()
		}
	}, t)
}

// adjust sets GOGC from the live heap of the collection just done; false
// once t is stopped.
func (t *gcTarget) adjust() bool {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	if s[0].Value.Kind() != metrics.KindUint64 {
		return true
	}
	p := gcPercentFor(int64(s[0].Value.Uint64()), t.held(), t.percent, t.floor)
	if p != t.last {
		t.last = p
		debug.SetGCPercent(p)
	}
	return true
}

// gcPercentFor is the GOGC that lets a heap of live bytes, held of them
// the cache's, grow by percent of the rest (at least floor) before the
// next collection; never above percent nor below gcMinPercent.
func gcPercentFor(live, held int64, percent int, floor int64) int {
	if live <= 0 {
		return percent
	}
	allow := max(max(live-held, 0)*int64(percent)/100, floor)
	return min(max(int(allow*100/live), gcMinPercent), percent)
}
