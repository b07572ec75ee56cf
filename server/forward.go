package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
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
// it there too, since the nodes share the metadata.
func (s *Server) forwardToIngest(c *call) error {
	if by := c.Request.Header.Peek(forwardedHeader); len(by) > 0 {
		// -ingest names another query node: forwarding again could loop.
		return fmt.Errorf("the query came forwarded by %s, and %s is not an ingest node", by, s.cfg.Advertise)
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	c.Request.CopyTo(req)
	req.SetHost(s.cfg.Ingest)
	req.URI().SetScheme("http")
	req.Header.Set(forwardedHeader, s.cfg.Advertise)
	if err := forwardClient.DoTimeout(req, resp, s.cfg.QueryTimeout+10*time.Second); err != nil {
		return fmt.Errorf("forwarding the query to the ingest node %s: %w", s.cfg.Ingest, err)
	}
	if resp.StatusCode() >= 500 {
		return fmt.Errorf("the ingest node %s answered %d", s.cfg.Ingest, resp.StatusCode())
	}
	resp.CopyTo(&c.Response)
	s.cluster.forwarded.Add(1)
	return errAnswered
}

// forwardedHeader marks a query another node forwarded, with its address.
const forwardedHeader = "X-Aplite-Forwarded-By"
