package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server"
)

// benchToken is the admin personal access token of every benchmark server.
const (
	benchToken = "xapt-bench0000000000000000000001"
	benchOrg   = "default"
)

// httpServer is a running aplite server on a loopback port with a client
// sized for conc concurrent requests.
type httpServer struct {
	srv    *server.Server
	addr   string
	client *fasthttp.HostClient
	done   chan error
}

// startServer serves dataDir (meta data) and, when d is not nil, that
// database's datasets, so a benchmark can query the very same data in
// process and over HTTP; otherwise the server opens its own in dataDir.
func startServer(tb testing.TB, dataDir string, d *db.DB, conc int) *httpServer {
	tb.Helper()
	return startServerWith(tb, server.Config{DataDir: dataDir, DB: d}, conc)
}

// startServerWith is startServer with more of the configuration given.
func startServerWith(tb testing.TB, cfg server.Config, conc int) *httpServer {
	tb.Helper()
	cfg.Addr, cfg.Token, cfg.Log = "127.0.0.1:0", benchToken, os.Stderr
	srv, err := server.New(cfg)
	if err != nil {
		tb.Fatalf("start server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		tb.Fatalf("listen: %v", err)
	}
	h := &httpServer{srv: srv, addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { h.done <- srv.Serve(ln) }()
	h.client = &fasthttp.HostClient{
		Addr:                          h.addr,
		MaxConns:                      max(conc, 1) * 2,
		ReadTimeout:                   5 * time.Minute,
		WriteTimeout:                  time.Minute,
		MaxResponseBodySize:           256 << 20,
		DisableHeaderNamesNormalizing: true,
	}
	return h
}

// stop shuts the server down (flushing and closing its storage).
func (h *httpServer) stop(tb testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.srv.Shutdown(ctx); err != nil {
		tb.Errorf("shutdown: %v", err)
	}
	<-h.done
}

// do sends one request with the admin token and returns the status and a
// copy of the body.
func (h *httpServer) do(method, path, contentType string, body []byte) (int, []byte, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	h.prepare(req, method, path, contentType, body)
	if err := h.client.Do(req, resp); err != nil {
		return 0, nil, err
	}
	return resp.StatusCode(), append([]byte(nil), resp.Body()...), nil
}

// prepare fills req without copying body (the caller keeps it alive and
// unchanged until the request is done).
func (h *httpServer) prepare(req *fasthttp.Request, method, path, contentType string, body []byte) {
	req.SetRequestURI("http://" + h.addr + path)
	req.Header.SetMethod(method)
	req.Header.Set("Authorization", "Bearer "+benchToken)
	req.Header.Set("X-Axiom-Org-Id", benchOrg)
	if contentType != "" {
		req.Header.SetContentType(contentType)
	}
	req.SetBodyRaw(body)
}

// createDataset creates name through the API, as a user would.
func (h *httpServer) createDataset(tb testing.TB, name string) {
	tb.Helper()
	body, _ := json.Marshal(map[string]string{"name": name, "description": "benchmark data"})
	code, resp, err := h.do("POST", "/v2/datasets", "application/json", body)
	if err != nil || code != 200 && code != 201 {
		tb.Fatalf("create dataset %q: %d %s %v", name, code, resp, err)
	}
}

// ingestStatus is the part of the ingest answer the benchmarks check.
type ingestStatus struct {
	Ingested int `json:"ingested"`
	Failed   int `json:"failed"`
}

// ingest posts one NDJSON body and checks every event was taken.
func (h *httpServer) ingest(dataset string, body []byte, events int) error {
	code, resp, err := h.do("POST", "/v1/datasets/"+dataset+"/ingest", "application/x-ndjson", body)
	if err != nil {
		return err
	}
	return checkIngest(code, resp, events)
}

func checkIngest(code int, resp []byte, events int) error {
	if code != 200 {
		return fmt.Errorf("ingest answered %d: %s", code, resp)
	}
	var st ingestStatus
	if err := json.Unmarshal(resp, &st); err != nil {
		return fmt.Errorf("ingest answer %q: %v", resp, err)
	}
	if st.Ingested != events || st.Failed != 0 {
		return fmt.Errorf("ingested %d, failed %d of %d events: %s", st.Ingested, st.Failed, events, resp)
	}
	return nil
}
