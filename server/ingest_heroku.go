package server

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/db/syslog"
)

// A Heroku HTTPS log drain posts to the ingest route Axiom's page gives,
// https://axiom:TOKEN@host/v1/datasets/DATASET/ingest, so it authenticates
// with HTTP basic auth (the token as the password) and sends
// Content-Type: application/logplex-1: octet-counted RFC 5424 frames, one
// log line each, with Logplex-Msg-Count saying how many. Basic auth is
// taken on this door only: the same route with any other content type
// still wants a Bearer token, so no other client's credentials are read
// a new way.

// logplexType is the media type of a Heroku drain's body.
const logplexType = "application/logplex-1"

// herokuDoor sends a logplex body to heroku and everything else to ingest.
func (s *Server) herokuDoor(ingest fasthttp.RequestHandler) fasthttp.RequestHandler {
	heroku := s.wrap("ingest", authOrg, s.handleHerokuIngest)
	return func(ctx *fasthttp.RequestCtx) {
		if !isLogplex(ctx.Request.Header.ContentType()) {
			ingest(ctx)
			return
		}
		basicAsBearer(ctx)
		heroku(ctx)
	}
}

// isLogplex reports whether a Content-Type is logplex's, parameters aside.
func isLogplex(ct []byte) bool {
	mt, _, err := mime.ParseMediaType(string(ct))
	return err == nil && mt == logplexType
}

// basicAsBearer rewrites "Basic base64(user:TOKEN)" into the Bearer header
// authenticate reads; the user name is ignored (Axiom's page uses
// "axiom"). Any other header is left as it is, and refused as usual.
func basicAsBearer(ctx *fasthttp.RequestCtx) {
	h := bytes.TrimSpace(ctx.Request.Header.Peek(fasthttp.HeaderAuthorization))
	scheme, cred, _ := bytes.Cut(h, []byte{' '})
	if !bytes.EqualFold(scheme, []byte("Basic")) {
		return
	}
	dec, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(cred)))
	if err != nil {
		return
	}
	if _, pw, ok := bytes.Cut(dec, []byte{':'}); ok && len(pw) > 0 {
		ctx.Request.Header.Set(fasthttp.HeaderAuthorization, "Bearer "+string(pw))
	}
}

// handleHerokuIngest stores each frame of a logplex body as one event,
// through the same checks and the same durable append as handleIngest,
// and answers with the ingest status (Heroku only reads the status code;
// a 2xx tells it the batch is delivered).
func (s *Server) handleHerokuIngest(c *call) error {
	start := time.Now()
	name, sets, err := s.ingestTarget(c)
	if err != nil {
		return err
	}
	want, err := msgCount(c.Request.Header.Peek("Logplex-Msg-Count"))
	if err != nil {
		return err
	}
	body, err := s.ingestBody(c)
	if err != nil {
		return err
	}
	res, err := sets.ingestSyslog(name, start.UnixNano(), func(bt *syslog.Batch) {
		syslog.SplitFrames(body, func(frame []byte, ferr error) { bt.Add(frame, ferr, "", start.UnixNano()) })
	})
	if err != nil {
		return s.syslogStoreFailed(name, err)
	}
	res.ProcessedBytes = int64(len(body))
	if got := res.Ingested + res.Failed; want > got {
		// Frames the count promised but the body did not hold: say so,
		// as events that were not stored.
		res.Failed += want - got
		res.Failures = append(res.Failures, db.Failure{Timestamp: start.UTC(),
			Error: fmt.Sprintf("Logplex-Msg-Count is %d but the body holds %d frames", want, got)})
	}
	s.countIngest(res, start)
	return writeJSON(c.RequestCtx, http.StatusOK, ingestStatus{Ingested: res.Ingested, Failed: res.Failed, Failures: res.Failures,
		ProcessedBytes: res.ProcessedBytes, BlocksCreated: res.Append.BlocksCreated, WALLength: res.Append.WALLength})
}

// msgCount reads Logplex-Msg-Count; -1 when absent.
func msgCount(v []byte) (int, error) {
	if len(v) == 0 {
		return -1, nil
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
	if err != nil || n < 0 {
		return 0, badRequest("Logplex-Msg-Count: %q is not a count of messages", v)
	}
	return n, nil
}

// ingestSyslog stores in the org's dataset name the messages fill adds to
// a syslog batch, through db's one ingest path (field cap, durable append
// before it returns).
func (v orgDatasets) ingestSyslog(name string, now int64, fill func(*syslog.Batch)) (db.IngestResult, error) {
	k, ok := v.key(name)
	if !ok {
		return db.IngestResult{}, errNoDataset(name)
	}
	return syslog.Ingest(v.db, k, now, fill)
}

// syslogStoreFailed answers a batch that was read but not stored.
func (s *Server) syslogStoreFailed(name string, err error) error {
	var ae *db.AppendError
	switch {
	case errors.As(err, &ae):
		return s.storeFailed(name, ae.Err)
	case errors.Is(err, db.ErrNotFound):
		return notFound("dataset %q not found", name)
	}
	return s.storeFailed(name, err)
}

// countIngest adds a stored batch to the ingest metrics, as handleIngest
// does.
func (s *Server) countIngest(res db.IngestResult, start time.Time) {
	m := s.metrics
	m.ingestRequests.Add(1)
	m.ingestEvents.Add(int64(res.Ingested))
	m.ingestFailed.Add(int64(res.Failed))
	m.ingestBytes.Add(res.ProcessedBytes)
	m.ingestLatency.observe(time.Since(start))
}
