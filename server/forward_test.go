package server

import (
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// A query that arrives forwarded is never forwarded again, so two query
// nodes whose -ingest name each other answer instead of looping.
func TestForwardedQueryIsNotForwardedAgain(t *testing.T) {
	s := &Server{cfg: Config{Ingest: "127.0.0.1:1", Advertise: "127.0.0.1:2"}}
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.Set(forwardedHeader, "127.0.0.1:3")
	err := s.forwardToIngest(&call{RequestCtx: &ctx})
	if err == nil || err == errAnswered || !strings.Contains(err.Error(), "forwarded by 127.0.0.1:3") {
		t.Fatalf("got %v", err)
	}
}
