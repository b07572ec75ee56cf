package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/aplite/aplite/db"
)

// testServer is a Server on an in-memory listener with an in-memory store,
// and a client that talks to it.
type testServer struct {
	t      *testing.T
	s      *Server
	client *fasthttp.Client
	token  string
	org    string
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	return newTestServerConfig(t, Config{})
}

func newTestServerConfig(t *testing.T, cfg Config) *testServer {
	t.Helper()
	if cfg.DataDir == "" {
		// A fresh directory gets an in-memory store; a given one is
		// served from disk.
		cfg.DataDir = t.TempDir()
		if cfg.DB == nil {
			cfg.DB = db.OpenMemory(db.Options{Isolated: true})
		}
	}
	if cfg.Token == "" {
		cfg.Token = "xapt-test-admin-token-0001"
	}
	cfg.Log = &bytes.Buffer{}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln := fasthttputil.NewInmemoryListener()
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
	client := &fasthttp.Client{
		Dial:                          func(string) (net.Conn, error) { return ln.Dial() },
		ReadTimeout:                   30 * time.Second,
		DisableHeaderNamesNormalizing: false,
	}
	return &testServer{t: t, s: s, client: client, token: s.Token(), org: s.OrgID()}
}

// req describes one request; zero fields take the admin defaults.
type req struct {
	method, path string
	body         any // []byte/string sent raw, anything else as JSON
	token        string
	noOrg        bool
	org          string
	contentType  string
	encoding     string // gzip or zstd: the body is compressed
	headers      map[string]string
}

// resp is what came back.
type resp struct {
	status int
	header map[string]string
	body   []byte
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

func (ts *testServer) do(r req) resp {
	ts.t.Helper()
	q := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(q)
	p := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(p)
	q.Header.SetMethod(r.method)
	q.SetRequestURI("http://aplite.test" + r.path)
	tok := r.token
	if tok == "" {
		tok = ts.token
	}
	if tok != "-" {
		q.Header.Set("Authorization", "Bearer "+tok)
	}
	if !r.noOrg {
		org := r.org
		if org == "" {
			org = ts.org
		}
		q.Header.Set("X-Axiom-Org-Id", org)
	}
	var body []byte
	switch b := r.body.(type) {
	case nil:
	case []byte:
		body = b
	case string:
		body = []byte(b)
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			ts.t.Fatal(err)
		}
	}
	ct := r.contentType
	if ct == "" && r.body != nil {
		ct = "application/json"
	}
	if ct != "" && ct != "-" {
		q.Header.SetContentType(ct)
	}
	switch r.encoding {
	case "gzip":
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(body)
		zw.Close()
		body = buf.Bytes()
		q.Header.Set("Content-Encoding", "gzip")
	case "zstd":
		enc, _ := zstd.NewWriter(nil)
		body = enc.EncodeAll(body, nil)
		q.Header.Set("Content-Encoding", "zstd")
	case "":
	default:
		q.Header.Set("Content-Encoding", r.encoding)
	}
	for k, v := range r.headers {
		q.Header.Set(k, v)
	}
	q.SetBody(body)
	if err := ts.client.Do(q, p); err != nil {
		ts.t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	out := resp{status: p.StatusCode(), header: map[string]string{}, body: append([]byte(nil), p.Body()...)}
	for k, v := range p.Header.All() {
		out.header[string(k)] = string(v)
	}
	return out
}

// must performs r and fails unless it answers want; it also checks the
// cross-cutting rules: JSON content type and a trace id on every answer.
func (ts *testServer) must(r req, want int) resp {
	ts.t.Helper()
	got := ts.do(r)
	if got.status != want {
		ts.t.Fatalf("%s %s: status %d, want %d; body %s", r.method, r.path, got.status, want, got.body)
	}
	if got.header["X-Axiom-Trace-Id"] == "" {
		ts.t.Errorf("%s %s: no X-Axiom-Trace-Id header", r.method, r.path)
	}
	if ct := got.header["Content-Type"]; want != 204 && ct != "application/json" {
		ts.t.Errorf("%s %s: Content-Type %q", r.method, r.path, ct)
	}
	if want == 204 && len(got.body) != 0 {
		ts.t.Errorf("%s %s: 204 with body %q", r.method, r.path, got.body)
	}
	return got
}

// mustErr performs r, expects status want with a JSON error whose message
// contains substr.
func (ts *testServer) mustErr(r req, want int, substr string) {
	ts.t.Helper()
	got := ts.must(r, want)
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	got.json(ts.t, &e)
	if e.Code != want || !bytes.Contains([]byte(e.Message), []byte(substr)) {
		ts.t.Fatalf("%s %s: error %+v, want code %d and message containing %q", r.method, r.path, e, want, substr)
	}
}

// createDataset makes a dataset as the admin.
func (ts *testServer) createDataset(name string) {
	ts.t.Helper()
	ts.must(req{method: "POST", path: "/v2/datasets", body: map[string]any{"name": name}}, 200)
}
