package server

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// window is a fixed one-second request counter. It is lock-free: the
// second it counts and the count are atomics, and a request arriving in a
// new second resets them. Races at the boundary can admit a handful of
// extra requests, which a per-second limit tolerates.
type window struct {
	sec atomic.Int64
	n   atomic.Int64
}

// take counts one request at unix second now and reports how many remain
// in the second and whether the request is within limit.
func (w *window) take(now, limit int64) (remaining int64, ok bool) {
	if old := w.sec.Load(); old != now && w.sec.CompareAndSwap(old, now) {
		w.n.Store(0)
	}
	n := w.n.Add(1)
	if n > limit {
		return 0, false
	}
	return limit - n, true
}

// orgLimits are the three request windows of one org.
type orgLimits struct {
	api, ingest, query window
}

// limiter enforces each org's license limits.
type limiter struct {
	mu   sync.Mutex
	orgs map[string]*orgLimits
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

// limitKind selects which window and headers a check uses.
type limitKind int

const (
	limitAPI limitKind = iota
	limitIngest
	limitQuery
)

// checkLimit counts a request of org against its license and returns the
// 429/430 error to answer with when it is over.
func (s *Server) checkLimit(org string, kind limitKind) error {
	lic := s.license(org)
	if lic == nil {
		return nil
	}
	var (
		w      *window
		limit  int64
		prefix string
		status int
	)
	o := s.limits.of(org)
	switch kind {
	case limitAPI:
		w, limit, prefix, status = &o.api, lic.APIRateLimitPerSecond, "X-RateLimit-", http.StatusTooManyRequests
	case limitIngest:
		w, limit, prefix, status = &o.ingest, lic.IngestLimitPerSecond, "X-IngestLimit-", 430
	case limitQuery:
		w, limit, prefix, status = &o.query, lic.QueryLimitPerSecond, "X-QueryLimit-", 430
	}
	if limit <= 0 {
		return nil
	}
	now := time.Now().Unix()
	if _, ok := w.take(now, limit); ok {
		return nil
	}
	hdr := [][2]string{
		{prefix + "Limit", itoa(limit)},
		{prefix + "Remaining", "0"},
		{prefix + "Reset", itoa(now + 1)},
	}
	msg := "rate limit exceeded: at most " + itoa(limit) + " requests per second"
	switch kind {
	case limitAPI:
		hdr = append(hdr, [2]string{"X-RateLimit-Scope", "organization"})
	case limitIngest:
		msg = "ingest limit exceeded: at most " + itoa(limit) + " ingest requests per second"
	case limitQuery:
		msg = "query limit exceeded: at most " + itoa(limit) + " queries per second"
	}
	return &apiError{Status: status, Message: msg, Headers: hdr}
}

// orgCache keeps org records in memory: every request needs its org's
// license, and orgs change only through PUT /v2/orgs/{id}.
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
