package console

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/valyala/fasthttp"
)

func get(t *testing.T, h fasthttp.RequestHandler, method, path string, headers ...string) *fasthttp.Response {
	t.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(path)
	for i := 0; i+1 < len(headers); i += 2 {
		ctx.Request.Header.Set(headers[i], headers[i+1])
	}
	h(&ctx)
	resp := &fasthttp.Response{}
	ctx.Response.CopyTo(resp)
	return resp
}

func TestEmbeddedConsoleServesEveryAsset(t *testing.T) {
	h := Handler()
	for _, c := range []struct{ path, ctype, contains string }{
		{"/", "text/html; charset=utf-8", "<title>aplite console</title>"},
		{"/console/", "text/html; charset=utf-8", "<title>aplite console</title>"},
		{"/console/app.js", "text/javascript; charset=utf-8", "import"},
		{"/console/style.css", "text/css; charset=utf-8", ".editor"},
		{"/console/wasm_exec.js", "text/javascript; charset=utf-8", "globalThis.Go"},
		{"/console/favicon.svg", "image/svg+xml", "<svg"},
		{"/console/aplite.wasm", "application/wasm", "\x00asm"},
	} {
		r := get(t, h, "GET", c.path)
		if r.StatusCode() != 200 || string(r.Header.ContentType()) != c.ctype {
			t.Errorf("GET %s: %d %q, want 200 %q", c.path, r.StatusCode(), r.Header.ContentType(), c.ctype)
			continue
		}
		if !bytes.Contains(r.Body(), []byte(c.contains)) {
			t.Errorf("GET %s: body lacks %q", c.path, c.contains)
		}
		if string(r.Header.Peek("Cache-Control")) != "no-cache" || len(r.Header.Peek("ETag")) < 10 {
			t.Errorf("GET %s: caching headers %q %q", c.path, r.Header.Peek("Cache-Control"), r.Header.Peek("ETag"))
		}
	}
}

func TestPageIsConfinedToItsOrigin(t *testing.T) {
	r := get(t, Handler(), "GET", "/")
	csp := string(r.Header.Peek("Content-Security-Policy"))
	for _, want := range []string{"default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("page policy %q lacks %q", csp, want)
		}
	}
	if string(r.Header.Peek("X-Frame-Options")) != "DENY" {
		t.Error("the page may be framed")
	}
	if js := get(t, Handler(), "GET", "/console/app.js"); len(js.Header.Peek("Content-Security-Policy")) != 0 {
		t.Error("the page policy is sent with scripts too")
	}
}

func TestGzipWhenAccepted(t *testing.T) {
	h := Handler()
	for _, p := range []string{"/console/aplite.wasm", "/console/app.js"} {
		plain := get(t, h, "GET", p)
		gz := get(t, h, "GET", p, "Accept-Encoding", "br, gzip")
		if string(gz.Header.Peek("Content-Encoding")) != "gzip" || len(plain.Header.Peek("Content-Encoding")) != 0 {
			t.Fatalf("%s: encodings %q / %q", p, gz.Header.Peek("Content-Encoding"), plain.Header.Peek("Content-Encoding"))
		}
		r, err := gzip.NewReader(bytes.NewReader(gz.Body()))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r)
		if !bytes.Equal(body, plain.Body()) || len(gz.Body()) >= len(body) {
			t.Errorf("%s: gzip body (%d bytes) does not inflate to the plain one (%d)", p, len(gz.Body()), len(plain.Body()))
		}
		if string(gz.Header.Peek("ETag")) != string(plain.Header.Peek("ETag")) || !strings.Contains(string(gz.Header.Peek("Vary")), "Accept-Encoding") {
			t.Errorf("%s: etag or vary differ between encodings", p)
		}
	}
}

func TestRevalidation(t *testing.T) {
	h := Handler()
	etag := string(get(t, h, "GET", "/console/app.js").Header.Peek("ETag"))
	if r := get(t, h, "GET", "/console/app.js", "If-None-Match", `"other", `+etag); r.StatusCode() != 304 || len(r.Body()) != 0 {
		t.Errorf("matching If-None-Match: %d with %d bytes, want 304 and no body", r.StatusCode(), len(r.Body()))
	}
	if r := get(t, h, "GET", "/console/app.js", "If-None-Match", `"stale"`); r.StatusCode() != 200 {
		t.Errorf("stale If-None-Match: %d, want 200", r.StatusCode())
	}
	if get(t, h, "GET", "/console/style.css").Header.Peek("ETag") == nil ||
		string(get(t, h, "GET", "/console/style.css").Header.Peek("ETag")) == etag {
		t.Error("two assets share an ETag")
	}
}

func TestRefusals(t *testing.T) {
	h := Handler()
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/console/nope.js", 404},
		{"GET", "/console/../console.go", 404},
		{"GET", "/console/aplite.wasm.gz", 404},
		{"GET", "/v1/datasets", 404},
		{"POST", "/console/app.js", 405},
		{"DELETE", "/", 405},
	} {
		if r := get(t, h, c.method, c.path); r.StatusCode() != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, r.StatusCode(), c.status)
		}
	}
	if r := get(t, h, "HEAD", "/console/app.js"); r.StatusCode() != 200 || string(r.Header.ContentType()) != "text/javascript; charset=utf-8" {
		t.Errorf("HEAD: %d %q", r.StatusCode(), r.Header.ContentType())
	}
}

func TestNewHandlerNeedsAnIndex(t *testing.T) {
	if _, err := NewHandler(fstest.MapFS{"app.js": {Data: []byte("x")}}); err == nil {
		t.Error("assets without index.html were accepted")
	}
	h, err := NewHandler(fstest.MapFS{"index.html": {Data: []byte("<p>hi</p>")}, "x.wasm.gz": {Data: []byte("not gzip")}})
	if err != nil {
		t.Fatal(err)
	}
	if r := get(t, h, "GET", "/console/x.wasm"); r.StatusCode() != 500 {
		t.Errorf("corrupt compressed asset: %d, want 500", r.StatusCode())
	}
	if r := get(t, h, "GET", "/"); string(r.Body()) != "<p>hi</p>" {
		t.Errorf("index = %q", r.Body())
	}
}
