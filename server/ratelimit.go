package server

import (
	"net/http"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/server/meta"
)

// An org's license sets three per-second limits: API requests (every
// authenticated route), ingest requests and queries. Each is counted in a
// sliding window, and every response of a route carries its limits'
// headers the way axiom-go and @axiomhq/js read them (X-RateLimit-Scope,
// -Limit, -Remaining, -Reset in Unix seconds; X-IngestLimit-* on ingest,
// X-QueryLimit-* on queries), so a client can pace itself before it is
// refused. A refusal (429 for the API limit, 430 for ingest and query, as
// Axiom answers) adds Retry-After in seconds.

// rateSlots is how many slots one second of a window is cut into.
const (
	rateSlots     = 100
	rateSlotWidth = int64(time.Second / rateSlots)
)

// window counts the requests admitted in the last second. It keeps the
// count of the current 10 ms slot and of the rateSlots slots before it:
// a little more than a second, so every request admitted within the last
// second is counted and no span of one second ever admits more than the
// limit (a fixed per-second counter admits twice the limit across a
// second's boundary). The price of the slots is that a request may be
// refused up to 10 ms before an exact log of times would admit it.
type window struct {
	mu     sync.Mutex
	newest int64 // slot number (Unix nanoseconds / slot width) counted last
	last   int64 // slot of the latest admitted request
	sum    int64 // admitted requests in the window
	counts [rateSlots + 1]int64
}

// windowState is what the limit headers say.
type windowState struct {
	limit, remaining int64
	// reset is when the window holds no admitted request any more, so
	// the whole limit is available again.
	reset time.Time
	// retry is how long until one more request would be admitted (0 if
	// one would be now).
	retry time.Duration
}

func slotOf(t time.Time) int64 { return t.UnixNano() / rateSlotWidth }

// advance moves the window to slot, dropping the slots that left it. A
// clock that steps back a little counts into the newest slot; one that
// steps back more than the window starts it afresh (else the window
// would refuse until the clock caught up).
func (w *window) advance(slot int64) {
	n := int64(len(w.counts))
	switch {
	case slot <= w.newest && slot > w.newest-n:
		return
	case slot-w.newest >= n || slot <= w.newest-n:
		clear(w.counts[:])
		w.sum = 0
	default:
		for s := w.newest + 1; s <= slot; s++ {
			w.sum -= w.counts[s%n]
			w.counts[s%n] = 0
		}
	}
	w.newest = slot
}

// take admits one request at now if the window holds fewer than limit,
// and returns the state after it.
func (w *window) take(now time.Time, limit int64) (windowState, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advance(slotOf(now))
	ok := w.sum < limit
	if ok {
		w.counts[w.newest%int64(len(w.counts))]++
		w.sum++
		w.last = w.newest
	}
	return w.state(now, limit), ok
}

// peek returns the state at now without counting a request.
func (w *window) peek(now time.Time, limit int64) windowState {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advance(slotOf(now))
	return w.state(now, limit)
}

func (w *window) state(now time.Time, limit int64) windowState {
	n := int64(len(w.counts))
	st := windowState{limit: limit, remaining: max(limit-w.sum, 0), reset: now}
	if w.sum > 0 {
		st.reset = time.Unix(0, (w.last+n)*rateSlotWidth)
	}
	if w.sum < limit {
		return st
	}
	// The oldest slots leave first: find the one whose leaving brings
	// the count under the limit.
	left := w.sum
	for s := w.newest - n + 1; s <= w.newest; s++ {
		if left -= w.counts[s%n]; left < limit {
			st.retry = time.Unix(0, (s+n)*rateSlotWidth).Sub(now)
			break
		}
	}
	return st
}

// orgLimits are the three request windows of one org.
type orgLimits struct {
	api, ingest, query window
}

// limiter enforces each org's license limits.
type limiter struct {
	mu   sync.Mutex
	orgs map[string]*orgLimits
	// now is the clock; tests drive it.
	now func() time.Time
}

func (l *limiter) of(org string) *orgLimits {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.orgs == nil {
		l.orgs = make(map[string]*orgLimits)
	}
	o := l.orgs[org]
	if o == nil {
		o = new(orgLimits)
		l.orgs[org] = o
	}
	return o
}

func (l *limiter) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// limitKind selects which window and headers a check uses.
type limitKind int

const (
	limitAPI limitKind = iota
	limitIngest
	limitQuery
	limitNone // a route with no limit beyond the API rate limit
)

// routeLimit is the limit, besides the API rate limit, whose headers the
// route named name answers with (the names wrap is given).
func routeLimit(name string) limitKind {
	switch name {
	case "ingest", "otlp_traces", "otlp_logs", "otlp_metrics", "ingest_firehose", "ingest_elastic":
		return limitIngest
	case "apl", "query_legacy":
		return limitQuery
	}
	return limitNone
}

// limitWindow returns org's window of kind and its license limit; nil when
// the org has no such limit.
func (s *Server) limitWindow(org string, kind limitKind) (*window, int64) {
	lic := s.license(org)
	if lic == nil {
		return nil, 0
	}
	o := s.limits.of(org)
	var w *window
	var limit int64
	switch kind {
	case limitAPI:
		w, limit = &o.api, lic.APIRateLimitPerSecond
	case limitIngest:
		w, limit = &o.ingest, lic.IngestLimitPerSecond
	case limitQuery:
		w, limit = &o.query, lic.QueryLimitPerSecond
	}
	if w == nil || limit <= 0 {
		return nil, 0
	}
	return w, limit
}

// checkLimit counts a request of org against its license and returns the
// 429/430 error to answer with when it is over.
func (s *Server) checkLimit(org string, kind limitKind) error {
	w, limit := s.limitWindow(org, kind)
	if w == nil {
		return nil
	}
	st, ok := w.take(s.limits.clock(), limit)
	if ok {
		return nil
	}
	retry := ceilSeconds(st.retry)
	hdr := append(limitHeaders(kind, st), [2]string{"Retry-After", itoa(retry)})
	status, msg := http.StatusTooManyRequests, "rate limit exceeded: at most "+itoa(limit)+" requests per second"
	switch kind {
	case limitIngest:
		status, msg = 430, "ingest limit exceeded: at most "+itoa(limit)+" ingest requests per second"
	case limitQuery:
		status, msg = 430, "query limit exceeded: at most "+itoa(limit)+" queries per second"
	}
	return &apiError{Status: status, Message: msg + "; retry in " + itoa(retry) + " s", Headers: hdr}
}

// setLimitHeaders puts the current state of org's API rate limit, and of
// the route's own limit, on the response.
func (s *Server) setLimitHeaders(ctx *fasthttp.RequestCtx, org string, route limitKind) {
	now := s.limits.clock()
	for _, kind := range []limitKind{limitAPI, route} {
		if w, limit := s.limitWindow(org, kind); w != nil {
			for _, h := range limitHeaders(kind, w.peek(now, limit)) {
				ctx.Response.Header.Set(h[0], h[1])
			}
		}
	}
}

// limitHeaders are the headers that report st for kind.
func limitHeaders(kind limitKind, st windowState) [][2]string {
	prefix := "X-RateLimit-"
	switch kind {
	case limitIngest:
		prefix = "X-IngestLimit-"
	case limitQuery:
		prefix = "X-QueryLimit-"
	}
	hdr := [][2]string{
		{prefix + "Limit", itoa(st.limit)},
		{prefix + "Remaining", itoa(st.remaining)},
		{prefix + "Reset", itoa(ceilSeconds(time.Duration(st.reset.UnixNano())))},
	}
	if kind == limitAPI {
		// Every limit is the org's, whichever token calls.
		hdr = append(hdr, [2]string{"X-RateLimit-Scope", "organization"})
	}
	return hdr
}

// ceilSeconds rounds d up to whole seconds, at least 1 for a positive d
// (Retry-After: 0 would invite an immediate retry that is refused).
func ceilSeconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// orgCache keeps org records in memory: every request needs its org's
// license, and orgs change only through PUT /v2/orgs/{id} and `aplite
// admin`, which both drop the cache.
type orgCache struct {
	mu   sync.RWMutex
	orgs map[string]*meta.Org
}

func (s *Server) org(id string) *meta.Org {
	s.orgs.mu.RLock()
	o, ok := s.orgs.orgs[id]
	s.orgs.mu.RUnlock()
	if ok {
		return o
	}
	var rec meta.Org
	if err := s.meta.Get(meta.KindOrg, "", id, &rec); err != nil {
		return nil
	}
	s.orgs.mu.Lock()
	if s.orgs.orgs == nil {
		s.orgs.orgs = make(map[string]*meta.Org)
	}
	s.orgs.orgs[id] = &rec
	s.orgs.mu.Unlock()
	return &rec
}

func (s *Server) forgetOrg(id string) {
	s.orgs.mu.Lock()
	delete(s.orgs.orgs, id)
	s.orgs.mu.Unlock()
}

func (s *Server) orgExists(id string) bool { return s.org(id) != nil }

func (s *Server) license(org string) *meta.License {
	if o := s.org(org); o != nil {
		return &o.License
	}
	return nil
}
