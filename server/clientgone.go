package server

import (
	"context"
	"errors"
	"net"
	"time"
)

// A query whose client hangs up should stop, not run to its deadline for
// nobody. fasthttp gives a handler no such signal (RequestCtx.Done fires
// only at shutdown), and it reads a connection only between requests, so
// while a query runs nothing would notice. watchClient looks at the
// connection itself every clientPoll with a peek that consumes nothing
// (peekClosed): an orderly close or a reset cancels the query's context
// with errClientGone. A pipelined next request is left in the socket for
// fasthttp to read.
//
// A client that half-closes (shuts down its sending side after the
// request, still reading) looks the same as one that hung up: a FIN is a
// FIN, and telling them apart would take a write. Like Go's net/http,
// which cancels a request's context when it reads EOF from the client,
// the query is stopped; such clients are rare for a query API, and a
// query running for nobody costs every other client.

// clientPoll is how often a running query's connection is checked.
const clientPoll = 200 * time.Millisecond

// errClientGone is the cause of a query context cancelled because its
// client closed the connection.
var errClientGone = errors.New("the client closed the connection")

// watchClient returns a context that is cancelled with errClientGone when
// conn's peer goes away, and a stop function that ends the watch. Where
// the connection cannot be peeked at (not a TCP or unix socket, or not
// Linux), the context only ends with its parent.
func watchClient(parent context.Context, conn net.Conn) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	probe := connProbe(conn)
	if probe == nil {
		return ctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(clientPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if probe() {
					cancel(errClientGone)
					return
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}
