package store

import (
	"sync"
	"time"
)

// Compaction steps aside for queries. Logs are searched most right after
// they arrive, and that is when an idle dataset's small blocks are being
// merged: at a million events the merge takes seconds of one core, and a
// rare-word search 10 s after the ingest took 60-80 ms while it ran
// against 5-6 ms over the same sealed blocks with compaction held off
// (issue 29). So a merge pauses, between pages, granules and columns,
// while a query holds a snapshot of any dataset of the DB, and goes on
// once none has for queryQuiet. It never waits more than queryPause times
// its own working time, so a steady stream of queries slows compaction
// to a quarter of its speed but cannot stop it.

// queryPause bounds a merge's waiting by its working time (a variable so
// a test can make the bound unreachable).
var queryPause = 3

// queryQuiet is how long no query must have run before a paused merge
// goes on: the queries of a dashboard or a benchmark come back to back,
// and a merge that went on in every gap between them would compete with
// each next one.
const queryQuiet = 20 * time.Millisecond

// queryGate counts the queries reading a DB: snapshots not yet released.
type queryGate struct {
	mu      sync.Mutex
	active  int
	lastEnd time.Time
	idle    chan struct{} // closed when the last running query ends
	// after is the pacer's timer (time.After; tests drive their own).
	after func(time.Duration) <-chan time.Time
}

// enter counts a query in.
func (g *queryGate) enter() {
	g.mu.Lock()
	if g.active == 0 {
		g.idle = make(chan struct{})
	}
	g.active++
	g.mu.Unlock()
}

// leave counts a query out.
func (g *queryGate) leave() {
	g.mu.Lock()
	if g.active--; g.active == 0 {
		close(g.idle)
		g.lastEnd = time.Now()
	}
	g.mu.Unlock()
}

// state is what a paused merge waits for at now: running is closed when
// the running queries end (nil when none runs), and quiet is how much
// longer the gate must stay without queries (0: it has been quiet long
// enough).
func (g *queryGate) state(now time.Time) (running <-chan struct{}, quiet time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.active > 0 {
		return g.idle, queryQuiet
	}
	if g.lastEnd.IsZero() {
		return nil, 0
	}
	return nil, max(0, queryQuiet-now.Sub(g.lastEnd))
}

// timer is the gate's timer, time.After unless a test set its own.
func (g *queryGate) timer(d time.Duration) <-chan time.Time {
	if g.after != nil {
		return g.after(d)
	}
	return time.After(d)
}

// mergePacer paces one merge: pause is called between its steps.
type mergePacer struct {
	gate   *queryGate
	stop   <-chan struct{} // the dataset is closing: no more waiting
	began  time.Time       // start of the current working stretch
	worked time.Duration
	waited time.Duration
}

func newMergePacer(g *queryGate, stop <-chan struct{}) *mergePacer {
	return &mergePacer{gate: g, stop: stop, began: time.Now()}
}

// pause waits while queries run, and for queryQuiet after the last one,
// as long as the merge's waiting stays within queryPause times its work.
func (p *mergePacer) pause() {
	now := time.Now()
	p.worked += now.Sub(p.began)
	defer func() { p.began = time.Now() }()
	for {
		left := time.Duration(queryPause)*p.worked - p.waited
		running, quiet := p.gate.state(now)
		if quiet <= 0 || left <= 0 {
			return
		}
		wait := min(quiet, left)
		if running != nil {
			wait = left
		}
		select {
		case <-p.stop:
			return
		case <-running:
		case <-p.gate.timer(wait):
		}
		next := time.Now()
		p.waited += next.Sub(now)
		now = next
	}
}
