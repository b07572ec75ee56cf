package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// The server logs through one slog.Logger (Config.Logger): each request at
// debug level, slow queries at info, refused requests (4xx) at info and
// failed ones (5xx) at warn, each with the request id the client sees in
// X-Request-Id and in the error body, so an operator can find the line a
// user reports. Older notices still written as text to Config.Log ("aplite:
// ...") become records of the same logger through LogWriter.

// requestIDHeader carries the request id: a proxy's own (when it looks
// like one) or the X-Axiom-Trace-Id the server stamps.
const requestIDHeader = "X-Request-Id"

// maxRequestID bounds an id taken from the request, which is logged and
// echoed: a longer one, or one with other bytes, is replaced.
const maxRequestID = 64

// NewLogger returns a logger writing to w in format "text" or "json" at
// level and above; slog's own formats, so log shippers parse them as is.
func NewLogger(w io.Writer, format string, level slog.Level) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", format)
}

// ParseLogLevel reads debug, info, warn or error.
func ParseLogLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("log level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// LogWriter returns a writer whose every line becomes a record of l: the
// notices the server and the storage write as text ("aplite: ..."), so
// that they come out in the logger's one format. A line that reports a
// failure is a warning, any other a notice (info).
func LogWriter(l *slog.Logger) io.Writer { return &logWriter{l: l} }

type logWriter struct {
	mu   sync.Mutex
	l    *slog.Logger
	part []byte // a line not yet ended
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := strings.TrimPrefix(string(w.part[:i]), "aplite: ")
		w.part = w.part[i+1:]
		if strings.TrimSpace(line) != "" {
			w.l.Log(context.Background(), lineLevel(line), line)
		}
	}
}

// failureWords mark a text notice as a warning.
var failureWords = []string{"fail", "cannot", "damaged", "corrupt", "missing", "not stored", "error", "panic", "no admin socket", "without", "retry", "refus"}

func lineLevel(line string) slog.Level {
	low := strings.ToLower(line)
	for _, w := range failureWords {
		if strings.Contains(low, w) {
			return slog.LevelWarn
		}
	}
	return slog.LevelInfo
}

// lockedWriter serializes writes to a writer the server shares between
// its logger and its text notices (a test's bytes.Buffer).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// logger is the server's logger; a Server built without New (tests) logs
// nothing.
func (s *Server) logger() *slog.Logger {
	if s.cfg.Logger != nil {
		return s.cfg.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// setRequestID stamps X-Request-Id: the caller's own id when it is a
// plausible one (a proxy's, so its logs and ours join), else traceID.
func setRequestID(ctx *fasthttp.RequestCtx, traceID []byte) {
	if id := ctx.Request.Header.Peek(requestIDHeader); validRequestID(id) {
		ctx.Response.Header.SetBytesV(requestIDHeader, id)
		return
	}
	ctx.Response.Header.SetBytesV(requestIDHeader, traceID)
}

func validRequestID(id []byte) bool {
	if len(id) == 0 || len(id) > maxRequestID {
		return false
	}
	for _, c := range id {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':'
		if !ok {
			return false
		}
	}
	return true
}

// requestID is the id stamped on ctx's response.
func requestID(ctx *fasthttp.RequestCtx) string {
	return string(ctx.Response.Header.Peek(requestIDHeader))
}

// logRequest logs one finished request: at debug level always, at info
// when it was a query slower than Config.SlowQuery or was refused (4xx),
// at warn when it failed (5xx). err is the handler's error, if any.
func (s *Server) logRequest(ctx *fasthttp.RequestCtx, route string, began time.Time, err error) {
	l := s.logger()
	status := ctx.Response.StatusCode()
	took := time.Since(began)
	attrs := []slog.Attr{
		slog.String("method", string(ctx.Method())), slog.String("path", string(ctx.Path())),
		slog.Int("status", status), slog.Duration("duration", took), slog.String("request_id", requestID(ctx)),
	}
	if status >= 400 && err != nil {
		attrs = append(attrs, slog.String("error", asAPIError(err).Message))
	}
	ctxb := context.Background()
	switch {
	case status >= 500:
		l.LogAttrs(ctxb, slog.LevelWarn, "request failed", attrs...)
	case status >= 400:
		l.LogAttrs(ctxb, slog.LevelInfo, "request refused", attrs...)
	default:
		l.LogAttrs(ctxb, slog.LevelDebug, "request", attrs...)
	}
	if s.cfg.SlowQuery > 0 && took >= s.cfg.SlowQuery && isQueryRoute(route) {
		attrs = append(attrs, slog.String("apl", s.queryText(ctx)))
		l.LogAttrs(ctxb, slog.LevelInfo, "slow query", attrs...)
	}
}

func isQueryRoute(route string) bool { return route == "apl" || route == "query_legacy" }

// queryText is the APL of a query request, cut to 1 kB for the log (the
// legacy structured query has none: its body is logged as sent).
func (s *Server) queryText(ctx *fasthttp.RequestCtx) string {
	body, err := s.requestBody(ctx)
	if err != nil {
		return ""
	}
	var b struct {
		APL string `json:"apl"`
	}
	text := string(body)
	if jsonAPI.Unmarshal(body, &b) == nil && b.APL != "" {
		text = b.APL
	}
	if len(text) > 1024 {
		text = text[:1024] + "…"
	}
	return text
}

// fasthttpLogger routes fasthttp's own messages (connection errors,
// malformed requests it answers itself) into the server's logger.
type fasthttpLogger struct{ s *Server }

// Printf implements fasthttp.Logger.
func (f fasthttpLogger) Printf(format string, args ...any) {
	f.s.logger().Warn(strings.TrimSpace(fmt.Sprintf(format, args...)), slog.String("source", "fasthttp"))
}

// Stored counts the datasets, events and blocks the server holds, for
// the start-up log of a restart.
func (s *Server) Stored() (datasets int, events int64, blocks int) {
	for _, in := range s.db.Datasets() {
		datasets++
		events += in.NumEvents
		blocks += in.NumBlocks
	}
	return datasets, events, blocks
}
