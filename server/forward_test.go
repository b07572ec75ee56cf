package server

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/db"
	"github.com/valyala/fasthttp"
)

// A query that arrives forwarded is never forwarded again, so two query
// nodes whose -ingest name each other answer instead of looping.
func TestForwardedQueryIsNotForwardedAgain(t *testing.T) {
	s := &Server{cfg: Config{Ingest: "127.0.0.1:1", Advertise: "127.0.0.1:2"}}
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.Set(forwardedHeader, "127.0.0.1:3")
	err := s.forwardToIngest(&call{RequestCtx: &ctx}, time.Second)
	if err == nil || err == errAnswered || !strings.Contains(err.Error(), "forwarded by 127.0.0.1:3") {
		t.Fatalf("got %v", err)
	}
}

// A fragment's answer travels uncompressed: the server gzips any answer
// a client accepts gzipped, which Go's client does unless told, and for
// a summarize by URL that cost both nodes more CPU than their scans.
func TestFragmentAnswersTravelUncompressed(t *testing.T) {
	state := bytes.Repeat([]byte("partial state "), 10_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Accept-Encoding"); got != "identity" {
			t.Errorf("fragment request accepts %q, want identity", got)
		}
		w.Write(state)
	}))
	defer srv.Close()
	s := &Server{cfg: Config{ClusterSecret: "s"}}
	out, err := s.sendFragment(context.Background(), srv.URL, "org", &db.Fragment{})
	if err != nil || !bytes.Equal(out, state) {
		t.Fatalf("got %d bytes, %v", len(out), err)
	}
	// And the server honours it: an answer asked for as identity is sent
	// as it is, one asked for gzipped is gzipped.
	ts := newTestServer(t)
	for enc, want := range map[string]string{"identity": "", "gzip": "gzip"} {
		r := ts.do(req{method: "POST", path: "/v1/datasets/_apl?format=tabular", body: map[string]string{"apl": `print s = strrep("state ", 2000)`},
			headers: map[string]string{"Accept-Encoding": enc}})
		if r.status != 200 {
			t.Fatalf("query: %d %s", r.status, r.body)
		}
		if got := r.header["Content-Encoding"]; got != want {
			t.Errorf("Accept-Encoding %s: Content-Encoding %q, want %q", enc, got, want)
		}
	}
}
