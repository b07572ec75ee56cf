package server

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/valyala/fasthttp"
)

// Decompressed bodies are read into pooled buffers; a request returns its
// buffer when the handler is done (see releaseBody), so steady ingest does
// not allocate a new multi-megabyte slice per request.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// zstd decoders are expensive to build and safe to reuse one at a time.
var zstdPool = sync.Pool{New: func() any {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(false))
	if err != nil {
		panic(err) // only fails on invalid options
	}
	return d
}}

var gzipPool sync.Pool // *gzip.Reader

const bodyBufKey = "aplite.body"

// requestBody returns the request body, decompressed according to
// Content-Encoding (absent, empty, identity, gzip or zstd) and capped at
// MaxBodyBytes after decompression. The slice is valid until the request
// ends.
func (s *Server) requestBody(ctx *fasthttp.RequestCtx) ([]byte, error) {
	if b, ok := ctx.UserValue(bodyBufKey).(*bytes.Buffer); ok {
		return b.Bytes(), nil
	}
	enc := strings.ToLower(strings.TrimSpace(string(ctx.Request.Header.ContentEncoding())))
	raw := ctx.Request.Body()
	switch enc {
	case "", "identity":
		if int64(len(raw)) > s.cfg.MaxBodyBytes {
			return nil, tooLarge(s.cfg.MaxBodyBytes)
		}
		return raw, nil
	case "gzip", "x-gzip", "zstd":
	default:
		return nil, errorf(http.StatusUnsupportedMediaType,
			"unsupported Content-Encoding %q: use gzip, zstd or none", enc)
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	ctx.SetUserValue(bodyBufKey, buf)
	var err error
	if enc == "zstd" {
		err = unzstd(buf, raw, s.cfg.MaxBodyBytes)
	} else {
		err = gunzip(buf, raw, s.cfg.MaxBodyBytes)
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// releaseBody returns the request's decompression buffer to the pool,
// and an ingest's memory to the governor (governor_ingest.go).
func releaseBody(ctx *fasthttp.RequestCtx) {
	releaseIngest(ctx)
	if b, ok := ctx.UserValue(bodyBufKey).(*bytes.Buffer); ok {
		ctx.RemoveUserValue(bodyBufKey)
		if b.Cap() <= 256<<20 {
			bodyPool.Put(b)
		}
	}
}

func tooLarge(limit int64) *apiError {
	return errorf(http.StatusRequestEntityTooLarge,
		"request body exceeds the limit of %d bytes after decompression", limit)
}

func unzstd(dst *bytes.Buffer, src []byte, limit int64) error {
	d := zstdPool.Get().(*zstd.Decoder)
	defer zstdPool.Put(d)
	if err := d.Reset(bytes.NewReader(src)); err != nil {
		return badRequest("invalid zstd body: %v", err)
	}
	return copyLimited(dst, d, limit, "zstd")
}

func gunzip(dst *bytes.Buffer, src []byte, limit int64) error {
	var zr *gzip.Reader
	if v := gzipPool.Get(); v != nil {
		zr = v.(*gzip.Reader)
		if err := zr.Reset(bytes.NewReader(src)); err != nil {
			return badRequest("invalid gzip body: %v", err)
		}
	} else {
		var err error
		if zr, err = gzip.NewReader(bytes.NewReader(src)); err != nil {
			return badRequest("invalid gzip body: %v", err)
		}
	}
	defer gzipPool.Put(zr)
	return copyLimited(dst, zr, limit, "gzip")
}

// copyLimited reads r into dst, failing with 413 past limit bytes.
func copyLimited(dst *bytes.Buffer, r io.Reader, limit int64, what string) error {
	n, err := dst.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil && !errors.Is(err, io.EOF) {
		return badRequest("invalid %s body: %v", what, err)
	}
	if n > limit {
		return tooLarge(limit)
	}
	return nil
}
