package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
)

// errAnswered tells the handler wrapper that the response is written
// already (a query answered by the ingest node).
var errAnswered = errors.New("answered")

// forwardClient sends queries on to the ingest node; its timeout is the
// longest a query may run there.
var forwardClient = &fasthttp.Client{ReadTimeout: 5 * time.Minute, WriteTimeout: time.Minute,
	MaxResponseBodySize: 1 << 30, DisableHeaderNamesNormalizing: true}

// forwardToIngest sends the caller's query request, as it came, to the
// ingest node (Config.Ingest) and answers with what it answers: a query
// this node cannot answer with the ingest node's unflushed events
// (db.ErrNeedsIngest) is answered there. The caller's token authenticates
// it there too, since the nodes share the metadata. The ingest node may
// take up to limit to answer, but only while it answers /health within
// the per-fragment timeout: a stopped node is given up on after that.
func (s *Server) forwardToIngest(c *call, limit time.Duration) error {
	if by := c.Request.Header.Peek(forwardedHeader); len(by) > 0 {
		// -ingest names another query node: forwarding again could loop.
		return fmt.Errorf("the query came forwarded by %s, and %s is not an ingest node", by, s.cfg.Advertise)
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	c.Request.CopyTo(req)
	req.SetHost(s.cfg.Ingest)
	req.URI().SetScheme("http")
	req.Header.Set(forwardedHeader, s.cfg.Advertise)
	done := make(chan error, 1)
	go func() { done <- forwardClient.DoTimeout(req, resp, limit) }()
	alive, stop := s.watchIngest()
	defer stop()
	var err error
	select {
	case err = <-done:
	case err = <-alive:
		// The forward still runs and owns req and resp: they go back to
		// no pool, and its answer to no one.
		return fmt.Errorf("the ingest node %s %w", s.cfg.Ingest, err)
	}
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	if err != nil {
		return fmt.Errorf("forwarding the query to the ingest node %s: %w", s.cfg.Ingest, err)
	}
	if resp.StatusCode() >= 500 {
		return fmt.Errorf("the ingest node %s answered %d", s.cfg.Ingest, resp.StatusCode())
	}
	resp.CopyTo(&c.Response)
	s.cluster.forwarded.Add(1)
	return errAnswered
}

// watchIngest asks the ingest node's /health once per per-fragment
// timeout while a forwarded query runs there; the channel delivers an
// error when it does not answer in time (a stopped process keeps its
// connections open, so only its silence tells), and stop ends the watch.
func (s *Server) watchIngest() (<-chan error, func()) {
	out := make(chan error, 1)
	quit := make(chan struct{})
	go func() {
		t := s.cfg.FragmentTimeout
		if t <= 0 { // a Server built without New
			t = 10 * time.Second
		}
		for {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			req.SetRequestURI("http://" + s.cfg.Ingest + "/health")
			start := time.Now()
			err := healthClient.DoTimeout(req, resp, t)
			fasthttp.ReleaseRequest(req)
			fasthttp.ReleaseResponse(resp)
			if err != nil {
				out <- fmt.Errorf("%w within %s (its /health: %v)", db.ErrNoAnswer, t, err)
				return
			}
			select {
			case <-quit:
				return
			case <-time.After(t - time.Since(start)):
			}
		}
	}()
	return out, func() { close(quit) }
}

// healthClient asks the ingest node whether it still answers, on
// connections of its own so a busy forward never holds its turn.
var healthClient = &fasthttp.Client{ReadTimeout: time.Minute, WriteTimeout: time.Minute}

// forwardedHeader marks a query another node forwarded, with its address.
const forwardedHeader = "X-Aplite-Forwarded-By"
