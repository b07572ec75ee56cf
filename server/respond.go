package server

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/bytedance/sonic"
	"github.com/valyala/fasthttp"
)

// jsonAPI is the sonic configuration of every response: no HTML escaping
// (the clients never embed responses in HTML) and std-compatible output.
var jsonAPI = sonic.Config{EscapeHTML: false, CompactMarshaler: true, CopyString: true}.Froze()

const contentTypeJSON = "application/json"

// writeJSON answers status with v encoded as JSON.
func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) error {
	buf, err := jsonAPI.Marshal(v)
	if err != nil {
		return err
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentTypeJSON)
	ctx.SetBody(buf)
	return nil
}

// noContent answers 204 with an empty body (deletes, v2 trim).
func noContent(ctx *fasthttp.RequestCtx) error {
	ctx.SetStatusCode(fasthttp.StatusNoContent)
	ctx.Response.ResetBody()
	return nil
}

// writeError renders err as the JSON error body.
func writeError(ctx *fasthttp.RequestCtx, err error) {
	ae := asAPIError(err)
	for _, h := range ae.Headers {
		ctx.Response.Header.Set(h[0], h[1])
	}
	body := errorBody{Code: ae.Status, Message: ae.Message, Detail: ae.Detail, RequestID: requestID(ctx)}
	buf, mErr := jsonAPI.Marshal(body)
	if mErr != nil {
		buf = []byte(`{"code":500,"message":"cannot encode error"}`)
	}
	ctx.SetStatusCode(ae.Status)
	ctx.SetContentType(contentTypeJSON)
	ctx.SetBody(buf)
}

// readJSON decodes the (possibly compressed) request body into v. An empty
// body is a 400 unless allowEmpty, in which case v is left untouched.
func (s *Server) readJSON(ctx *fasthttp.RequestCtx, v any, allowEmpty bool) error {
	body, err := s.requestBody(ctx)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if allowEmpty {
			return nil
		}
		return badRequest("request body is empty: a JSON object is required")
	}
	if err := jsonAPI.Unmarshal(body, v); err != nil {
		return badRequest("invalid JSON body: %s", shortErr(err))
	}
	return nil
}

// shortErr keeps decoder messages to one readable line.
func shortErr(err error) string {
	msg := err.Error()
	// sonic quotes its syntax errors, escaping the source excerpt and
	// caret lines it appends; unquoted, the first line is the message
	// with the byte index.
	if u, uerr := strconv.Unquote(msg); uerr == nil && strings.HasPrefix(msg, `"`) {
		msg = u
	}
	if i := bytes.IndexByte([]byte(msg), '\n'); i > 0 {
		msg = msg[:i]
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// traceIDs are a random per-process prefix and a counter: unique, cheap,
// and never derived from request content.
var (
	tracePrefix [8]byte
	traceSeq    atomic.Uint64
)

func init() {
	rand.Read(tracePrefix[:])
}

// setTraceID stamps the X-Axiom-Trace-Id response header.
func setTraceID(ctx *fasthttp.RequestCtx) {
	var buf [32]byte
	hex.Encode(buf[:16], tracePrefix[:])
	n := traceSeq.Add(1)
	for i := 31; i >= 16; i-- {
		buf[i] = "0123456789abcdef"[n&15]
		n >>= 4
	}
	ctx.Response.Header.SetBytesV("X-Axiom-Trace-Id", buf[:])
	setRequestID(ctx, buf[:])
}

// formatTime renders t the way every response does: UTC, RFC 3339, "Z".

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
