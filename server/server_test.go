package server

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aplite/aplite/server/meta"
)

func TestGeneratedTokenIsAnnouncedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	s, err := New(Config{DataDir: dir, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	tok := s.Token()
	if !strings.HasPrefix(tok, "xapt-") || !strings.Contains(log.String(), tok) ||
		!strings.Contains(log.String(), filepath.Join(dir, TokenFileName)) {
		t.Fatalf("token %q, log %q", tok, log.String())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, TokenFileName))
	if err != nil || strings.TrimSpace(string(b)) != tok {
		t.Fatalf("kept token %q, %v", b, err)
	}
	// The metadata file holds only the hash.
	raw, _ := os.ReadFile(filepath.Join(dir, meta.FileName))
	if bytes.Contains(raw, []byte(tok)) {
		t.Fatal("metadata file contains the token in clear")
	}
	log.Reset()
	s, err = New(Config{DataDir: dir, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Token() != tok || log.Len() != 0 {
		t.Fatalf("second start: token %q (want %q), log %q", s.Token(), tok, log.String())
	}
}

func TestConfiguredTokenAndRestartKeepData(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Token: "xapt-my-token-123", OrgID: "acme", Log: &bytes.Buffer{}}
	ts := newTestServerConfig(t, cfg)
	ts.createDataset("ds")
	ts.must(req{method: "POST", path: "/v2/rbac/groups", body: map[string]any{"name": "g"}}, 200)
	if ts.org != "acme" {
		t.Fatalf("org %q", ts.org)
	}
	if _, err := New(Config{DataDir: dir, Token: "not-a-pat"}); err == nil {
		t.Fatal("a token without the xapt- prefix must be refused")
	}
	if _, err := New(Config{DataDir: t.TempDir(), Token: "xapt-bad token"}); err == nil {
		t.Fatal("a malformed token must be refused")
	}
}

func TestDataSurvivesRestartOnDisk(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DataDir: dir, Token: "xapt-disk-token-123", Log: &bytes.Buffer{}}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	base := "http://" + ln.Addr().String()
	do := func(method, path, body string) *http.Response {
		r, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+cfg.Token)
		r.Header.Set("X-Axiom-Org-Id", "default")
		r.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := do("POST", "/v2/datasets", `{"name":"kept"}`); r.StatusCode != 200 {
		t.Fatalf("create %d", r.StatusCode)
	}
	if r := do("POST", "/v1/datasets/kept/ingest", `[{"a":1},{"a":2}]`); r.StatusCode != 200 {
		t.Fatalf("ingest %d", r.StatusCode)
	}
	// A second server on the same address fails at once, saying why.
	s2cfg := cfg
	s2cfg.DataDir, s2cfg.Addr = t.TempDir(), ln.Addr().String()
	s2, err := New(s2cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.ListenAndServe(); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("second listener: %v", err)
	}
	s2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	ts := newTestServerConfig(t, Config{DataDir: dir, Token: cfg.Token})
	if n := ts.count("kept"); n != 2 {
		t.Fatalf("after restart count %d", n)
	}
	var ds datasetView
	ts.must(req{method: "GET", path: "/v2/datasets/kept"}, 200).json(t, &ds)
	if ds.Who == "" {
		t.Fatalf("dataset settings lost: %+v", ds)
	}
}

func TestMetricsAndCompressedResponses(t *testing.T) {
	ts := newTestServer(t)
	ts.createDataset("ds")
	ts.ingestNDJSON("ds", "{\"a\":1}\n")
	ts.count("ds")
	r := ts.do(req{method: "GET", path: "/metrics", token: "-", noOrg: true})
	body := string(r.body)
	for _, want := range []string{"aplite_ingest_events_total 1", "aplite_queries_total 1",
		`aplite_http_requests_total{route="ingest",code="2xx"} 1`, "aplite_query_duration_seconds_bucket{le=\"+Inf\"} 1",
		"# TYPE aplite_ingest_duration_seconds histogram"} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	// Large JSON answers are compressed when the client accepts it, and
	// stay application/json.
	for i := 0; i < 30; i++ {
		ts.must(req{method: "POST", path: "/v2/rbac/groups", body: map[string]any{"name": "group-" + strings.Repeat("x", i+1)}}, 200)
	}
	got := ts.do(req{method: "GET", path: "/v2/rbac/groups", headers: map[string]string{"Accept-Encoding": "gzip"}})
	if got.header["Content-Encoding"] != "gzip" || got.header["Content-Type"] != "application/json" {
		t.Fatalf("headers %v", got.header)
	}
}

// The web console is served at / without a token.
func TestConsoleMounted(t *testing.T) {
	ts := newTestServer(t)
	r := ts.do(req{method: "GET", path: "/", token: "-", noOrg: true})
	if r.status != 200 || !strings.Contains(string(r.body), "<html") {
		t.Fatalf("GET /: %d %.200s", r.status, r.body)
	}
}
