package console

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
)

//go:embed assets
var embedded embed.FS

// Prefix is the URL path under which the assets are served; index.html
// is also served at "/".
const Prefix = "/console/"

var (
	defaultOnce    sync.Once
	defaultHandler fasthttp.RequestHandler
)

// Assets returns the embedded console files (index.html at the root), for
// serving them elsewhere or overlaying some of them (tests replace
// aplite.wasm.gz with a build of the sources under test).
func Assets() fs.FS {
	sub, err := fs.Sub(embedded, "assets")
	if err != nil {
		panic(err) // "assets" is a valid path: a build defect
	}
	return sub
}

// Handler serves the console embedded in the binary.
func Handler() fasthttp.RequestHandler {
	defaultOnce.Do(func() {
		var err error
		if defaultHandler, err = NewHandler(Assets()); err != nil {
			panic(fmt.Sprintf("console: embedded assets: %v", err)) // a build defect, not a run-time condition
		}
	})
	return defaultHandler
}

// NewHandler serves the console from fsys, whose root holds index.html
// and the other assets: development can point it at the source directory,
// and tests at assets with a freshly built aplite.wasm. A file named X.gz
// is served as X, compressed. fsys is read once, here.
func NewHandler(fsys fs.FS) (fasthttp.RequestHandler, error) {
	set, err := loadAssets(fsys)
	if err != nil {
		return nil, err
	}
	if _, ok := set["index.html"]; !ok {
		return nil, fmt.Errorf("console: no index.html in the assets")
	}
	// functions.json: the engine's functions, for the editor's completion
	// in server mode (offline mode asks the WASM engine).
	fns, err := json.Marshal(db.Functions())
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(fns)
	fa := &asset{ctype: "application/json", etag: `"` + hex.EncodeToString(sum[:12]) + `"`, raw: fns, gz: compress(fns)}
	fa.rawOnce.Do(func() {})
	set["functions.json"] = fa
	return set.serve, nil
}

// asset is one file ready to serve.
type asset struct {
	ctype string
	etag  string
	gz    []byte // gzip-compressed body; nil when compression does not pay
	// raw is the identity body; for an asset embedded compressed it is
	// inflated on the first request that needs it.
	raw     []byte
	rawOnce sync.Once
	rawErr  error
}

type assets map[string]*asset

func loadAssets(fsys fs.FS) (assets, error) {
	set := assets{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		a := &asset{etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		name := p
		if strings.HasSuffix(p, ".gz") {
			name = strings.TrimSuffix(p, ".gz")
			a.gz = b
		} else {
			a.raw = b
			a.rawOnce.Do(func() {})
			a.gz = compress(b)
		}
		a.ctype = contentType(name)
		set[name] = a
		return nil
	})
	return set, err
}

// compress gzips b, or returns nil when that saves too little to matter.
func compress(b []byte) []byte {
	if len(b) < 1024 {
		return nil
	}
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	if buf.Len() > len(b)*9/10 {
		return nil
	}
	return buf.Bytes()
}

// identity returns the uncompressed body.
func (a *asset) identity() ([]byte, error) {
	a.rawOnce.Do(func() {
		r, err := gzip.NewReader(bytes.NewReader(a.gz))
		if err == nil {
			a.raw, err = io.ReadAll(r)
		}
		a.rawErr = err
	})
	return a.raw, a.rawErr
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".wasm": "application/wasm",
	".svg":  "image/svg+xml",
	".json": "application/json",
	".txt":  "text/plain; charset=utf-8",
	".md":   "text/markdown; charset=utf-8",
	".ico":  "image/x-icon",
	".png":  "image/png",
}

func contentType(name string) string {
	if ct, ok := contentTypes[path.Ext(name)]; ok {
		return ct
	}
	return "application/octet-stream"
}

// lookup maps a request path onto an asset name: "/" and the prefix
// itself are the index page.
func lookup(p string) string {
	switch p {
	case "/", "/console", Prefix, Prefix + "index.html":
		return "index.html"
	}
	if strings.HasPrefix(p, Prefix) {
		return p[len(Prefix):]
	}
	return ""
}

func (set assets) serve(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		ctx.Error("method not allowed", fasthttp.StatusMethodNotAllowed)
		return
	}
	a, ok := set[lookup(string(ctx.Path()))]
	if !ok {
		ctx.Error("not found", fasthttp.StatusNotFound)
		return
	}
	h := &ctx.Response.Header
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", a.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Vary", "Accept-Encoding")
	h.SetContentType(a.ctype)
	if strings.HasPrefix(a.ctype, "text/html") {
		setPageHeaders(h)
	}
	if matchETag(ctx.Request.Header.Peek("If-None-Match"), a.etag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	if a.gz != nil && ctx.Request.Header.HasAcceptEncoding("gzip") {
		h.Set("Content-Encoding", "gzip")
		ctx.SetBody(a.gz)
	} else {
		body, err := a.identity()
		if err != nil {
			ctx.Error("corrupt asset: "+err.Error(), fasthttp.StatusInternalServerError)
			return
		}
		ctx.SetBody(body)
	}
	if ctx.IsHead() {
		ctx.Response.SkipBody = true
	}
}

// pagePolicy confines the page to its own origin: the console renders
// event values, and the user's token sits in its session storage, so a
// value that slipped past escaping must not run scripts or send data
// elsewhere. WebAssembly compilation needs 'wasm-unsafe-eval'.
const pagePolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

func setPageHeaders(h *fasthttp.ResponseHeader) {
	h.Set("Content-Security-Policy", pagePolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
}

// matchETag reports whether an If-None-Match header names etag (or *).
func matchETag(header []byte, etag string) bool {
	for _, part := range strings.Split(string(header), ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == etag {
			return true
		}
	}
	return false
}
