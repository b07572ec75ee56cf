package compat

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/axiomhq/axiom-go/axiom"

	"github.com/aplite/aplite/server"
)

// TestLimitsAsAxiomGoReadsThem checks the limit headers with axiom-go's
// own parsing (axiom/limit.go): on successful answers, where the client
// paces itself by them, and in the LimitError of a refusal. The limits
// are set the way an operator does, through `aplite admin` on the
// running server.
func TestLimitsAsAxiomGoReadsThem(t *testing.T) {
	dir := t.TempDir()
	h := startIn(t, dir)
	a, err := server.OpenAdmin(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	setLimits := func(api, ingest, query int64) {
		t.Helper()
		if _, err := a.SetLimits(h.org, server.Limits{APIRate: &api, IngestRate: &ingest, QueryRate: &query}); err != nil {
			t.Fatal(err)
		}
	}
	setLimits(1000, 50, 40)
	if _, err := h.client.Datasets.Create(h.ctx, axiom.DatasetCreateRequest{Name: "lim"}); err != nil {
		t.Fatal(err)
	}
	call := func(method, path, body, want string, limit uint64) axiom.Limit {
		t.Helper()
		var b any
		if body != "" {
			b = strings.NewReader(body)
		}
		req, err := h.client.NewRequest(h.ctx, method, path, b)
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := h.client.Do(req, nil)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		l := resp.Limit
		if !strings.Contains(l.String(), want) || l.Limit != limit || l.Remaining >= limit ||
			time.Until(l.Reset) > 3*time.Second || time.Until(l.Reset) < -time.Second {
			t.Fatalf("%s %s: axiom-go read %q (%+v), want a %q of %d", method, path, l, l, want, limit)
		}
		return l
	}
	first := call("GET", "/v2/datasets", "", "rate limit", 1000)
	second := call("GET", "/v2/datasets", "", "rate limit", 1000)
	if first.Scope != axiom.LimitScopeOrganization || second.Remaining >= first.Remaining {
		t.Fatalf("rate limits %+v then %+v: want scope organization and fewer remaining", first, second)
	}
	call("POST", "/v1/datasets/lim/ingest", `{"a":1}`, "ingest limit", 50)
	call("POST", "/v1/datasets/_apl?format=tabular", `{"apl":"['lim'] | count"}`, "query limit", 40)

	// Refused: the client returns a LimitError carrying the limit.
	setLimits(1000, 1, 40)
	var le axiom.LimitError
	for range 5 {
		_, err = h.client.IngestEvents(h.ctx, "lim", []axiom.Event{{"a": 2}})
		if errors.As(err, &le) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if le.Limit.Limit != 1 || le.Limit.Remaining != 0 || le.Status != 430 || !le.Limit.Reset.After(time.Now().Add(-time.Second)) ||
		!strings.Contains(le.Error(), "ingest limit exceeded: try again in") {
		t.Fatalf("ingest refusal: %v (%+v)", err, le.Limit)
	}
	setLimits(1, 50, 40)
	le = axiom.LimitError{}
	for range 5 {
		_, err = h.client.Datasets.List(h.ctx)
		if errors.As(err, &le) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if le.Limit.Scope != axiom.LimitScopeOrganization || le.Limit.Limit != 1 || le.Status != 429 ||
		!strings.Contains(le.Error(), "rate limit exceeded") {
		t.Fatalf("API refusal: %v (%+v)", err, le.Limit)
	}
}

// startIn is start with the data directory dir, served from disk so
// `aplite admin` can reach the running server.
func startIn(t *testing.T, dir string) *harness {
	t.Helper()
	s, err := server.New(server.Config{DataDir: dir, Token: "xapt-compat-suite-token", Log: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
	})
	h := &harness{t: t, url: "http://" + ln.Addr().String(), org: s.OrgID(), token: s.Token(),
		strict: &strictTransport{base: http.DefaultTransport}, ctx: context.Background()}
	h.client = h.newClient(h.token)
	return h
}
