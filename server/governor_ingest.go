package server

import (
	"context"
	"time"

	"github.com/valyala/fasthttp"
)

// Ingest's share of the memory budget. An ingest request holds its body
// and the columns it decodes into until it is stored; one request is
// bounded by -max-body, but many at once were bounded by nothing, and
// together with the queries they could take the process past its
// budget. So every ingest door reserves what its body will cost from the
// same pool the queries draw on, before it decodes it, and gives it back
// when the request ends. A request the pool cannot cover waits up to
// ingestWait for running queries and ingests to give memory back, then
// gets 429 with Retry-After: the Axiom clients and the shippers retry
// it, and nothing is lost or half stored. The watchdog never stops an
// ingest: it holds no context the watchdog could end, and stopping one
// midway would waste the memory it already used.

const (
	// ingestBytesPerByte is the resident memory an ingest takes per byte
	// of its (decompressed) body: the body, the column builders it is
	// decoded into (strings copied out of it, slices grown by doubling)
	// and the encoded batch the WAL writes. The cgroup test's ingest
	// shape (serve_memory_cgroup_test.go) holds it to the budget.
	ingestBytesPerByte = 3
	// ingestWait is how long an ingest waits for memory before its 429:
	// short, since its sender holds the events and will retry.
	ingestWait = 2 * time.Second
)

const ingestLeaseKey = "aplite.ingestLease"

// ingestBody is requestBody for the ingest doors: the body, once the
// memory its decoding takes is reserved for the rest of the request.
func (s *Server) ingestBody(c *call) ([]byte, error) {
	body, err := s.requestBody(c.RequestCtx)
	if err != nil || s.gov == nil {
		return body, err
	}
	if _, held := c.UserValue(ingestLeaseKey).(*memLease); held {
		return body, nil
	}
	l, err := s.gov.admitIngest(c.RequestCtx, int64(len(body))*ingestBytesPerByte)
	if err != nil {
		if me := memoryAPIError(err); me != nil {
			return nil, me
		}
		return nil, err
	}
	c.SetUserValue(ingestLeaseKey, l)
	return body, nil
}

// releaseIngest gives back the reservation of an ingest request, if it
// made one; every request calls it when it ends (releaseBody).
func releaseIngest(ctx *fasthttp.RequestCtx) {
	if l, ok := ctx.UserValue(ingestLeaseKey).(*memLease); ok {
		ctx.RemoveUserValue(ingestLeaseKey)
		l.release()
	}
}

// admitIngest reserves n bytes for an ingest request, waiting at most
// g.ingestWait. A body whose decoding alone needs more than the pool waits
// for the whole pool: -max-body let it in, and a retry could not make
// it smaller.
func (g *memGovernor) admitIngest(ctx context.Context, n int64) (*memLease, error) {
	return g.reserve(ctx, min(n, g.pool), g.ingestWait, true)
}
