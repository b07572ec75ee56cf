package server

import (
	"context"
	rtmetrics "runtime/metrics"
	"time"
)

// The governor's second line. Reservations count what queries charge,
// and some memory no charge point sees: the trees of a long query text,
// a plan holding a large constant, an expression that builds an array
// per row. So the governor also watches what the process really holds,
// as the Go runtime reports it, several times a second. While the
// resident heap is over 95% of the budget (the collector, whose soft
// limit is 90% of it, could not bring it under) no query is admitted, and the
// newest running query is stopped with the out-of-memory answer (429,
// Retry-After); the next is stopped only after the first has given its
// memory back and a collection has run, so one burst sheds as few
// queries as it can. Before any query is stopped the column cache lets
// go of every column, and a collection is waited for: columns kept for
// later are the first memory to give up.

// watchEvery is how often the watchdog samples the runtime.
const watchEvery = 50 * time.Millisecond

// shedPatience is how long the watchdog waits for a stopped query to
// give its memory back before it stops the next: a query busy where it
// cannot see its context (planning a huge constant) keeps its memory
// until it gets there, and the others must not grow past the cgroup
// meanwhile.
const shedPatience = time.Second

// memSample is the process's memory as the runtime sees it.
type memSample struct {
	resident int64  // mapped and not returned to the OS: RSS, less code and stacks
	gcs      uint64 // collections completed
	at       time.Time
}

var sampleNames = []string{"/memory/classes/total:bytes", "/memory/classes/heap/released:bytes", "/gc/cycles/total:gc-cycles"}

// readMemSample asks the runtime; it does not stop the world.
func readMemSample() memSample {
	s := make([]rtmetrics.Sample, len(sampleNames))
	for i, n := range sampleNames {
		s[i].Name = n
	}
	rtmetrics.Read(s)
	return memSample{resident: int64(s[0].Value.Uint64() - s[1].Value.Uint64()), gcs: s[2].Value.Uint64(), at: time.Now()}
}

// watchState is what the watchdog remembers between samples.
type watchState struct {
	budget int64 // the process's whole budget; 0: not watching
	// shed is the query stopped last (at since), until it has given its
	// memory back (back, at collection count gcs) and a collection has
	// run since, or shedPatience has passed.
	shed  *memLease
	since time.Time
	back  bool
	gcs   uint64
	// yielded is set while the column cache has let go of its columns
	// (at since, collection count gcs) and no collection has run since.
	yielded bool
}

// watchProcess samples the process until ctx ends.
func (g *memGovernor) watchProcess(ctx context.Context) {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			g.check(readMemSample())
		}
	}
}

// check acts on one sample: it sets or clears the pressure that holds
// new queries back, and stops the newest query when it should.
func (g *memGovernor) check(m memSample) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := &g.watch
	over := w.budget > 0 && m.resident > w.budget-w.budget/20
	if g.pressed && !over {
		close(g.freed) // wake the queries that waited for the pressure to pass
		g.freed = make(chan struct{})
	}
	g.pressed = over
	if w.shed != nil && m.at.Sub(w.since) < shedPatience {
		if _, running := g.leases[w.shed]; running {
			return // its memory is not back yet
		}
		if !w.back {
			w.back, w.gcs = true, m.gcs
			return
		}
		if m.gcs == w.gcs {
			return // not collected yet
		}
	}
	w.shed = nil
	if w.yielded && m.gcs == w.gcs && m.at.Sub(w.since) < shedPatience {
		return // the cache's columns are not collected yet
	}
	w.yielded = false
	if !over {
		return
	}
	if g.cache != nil && g.cache.Used() > 0 {
		g.cache.ShrinkTo(0)
		w.yielded, w.since, w.gcs = true, m.at, m.gcs
		return
	}
	var newest *memLease
	for l, seq := range g.leases {
		if l.stop != nil && !l.stopped && (newest == nil || seq > g.leases[newest]) {
			newest = l
		}
	}
	if newest == nil {
		return
	}
	newest.stopped = true
	w.shed, w.back, w.since = newest, false, m.at
	newest.stop(&outOfMemoryError{retry: true, shed: true, pool: w.budget, inUse: m.resident})
}
