package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
	"unsafe"

	"github.com/bytedance/sonic"
	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
)

// Amazon Data Firehose delivers to an HTTP endpoint in the shape AWS
// specifies ("HTTP endpoint delivery request and response
// specifications"): a POST whose JSON body carries base64 records, the
// stream's access key in X-Amz-Firehose-Access-Key, and an answer that
// must echo the request id with a timestamp. Axiom's aws-firehose page
// points a stream at /v1/ingest/{dataset}/firehose with an API token as
// the access key; this file is that door. The events go through the same
// db ingest as /v1/ingest/{id}: same permissions, limits and field caps.

const (
	firehoseKeyHeader       = "X-Amz-Firehose-Access-Key"
	firehoseRequestIDHeader = "X-Amz-Firehose-Request-Id"
)

// firehoseRequest is the delivery request body (protocol 1.0).
type firehoseRequest struct {
	RequestID string           `json:"requestId"`
	Timestamp int64            `json:"timestamp"`
	Records   []firehoseRecord `json:"records"`
}

type firehoseRecord struct {
	Data string `json:"data"`
}

// firehoseResponse is the only answer Firehose accepts: anything else,
// even on 200, counts as a failed delivery. ErrorMessage is for failures,
// which Firehose logs verbatim to the stream's CloudWatch log.
type firehoseResponse struct {
	RequestID    string `json:"requestId"`
	Timestamp    int64  `json:"timestamp"`
	ErrorMessage string `json:"errorMessage,omitempty"`
}

// firehoseJSON reads the envelope without copying the records' strings
// (CopyString off): they are decoded before the request ends.
var firehoseJSON = sonic.Config{}.Froze()

// firehoseRoute serves the Firehose door through wrap, like every route
// (trace id, authentication, rate limits, metrics), with two changes:
// the access key header stands in for Authorization, and an error wrap
// rendered is rewritten into Firehose's response shape (its status and
// headers kept). Firehose retries every status but 200 and 413 until its
// retry duration runs out, then backs the batch up to S3: so a stored
// batch answers 200, a batch too large to ever fit 413, and a fault the
// user can fix (a missing dataset, a token) keeps its 4xx and is retried
// in the meantime.
func (s *Server) firehoseRoute() fasthttp.RequestHandler {
	inner := s.wrap("ingest_firehose", authOrg, s.handleFirehose)
	return func(ctx *fasthttp.RequestCtx) {
		keyMissing := firehoseAuth(ctx)
		inner(ctx)
		if ctx.Response.StatusCode() == http.StatusOK {
			return // handleFirehose answered in Firehose's shape
		}
		var e errorBody
		if err := jsonAPI.Unmarshal(ctx.Response.Body(), &e); err != nil || e.Message == "" {
			e.Message = http.StatusText(ctx.Response.StatusCode())
		}
		if keyMissing && ctx.Response.StatusCode() == http.StatusForbidden {
			e.Message = "missing " + firehoseKeyHeader + " header: set the Firehose stream's access key to an API token"
		}
		writeFirehose(ctx, ctx.Response.StatusCode(), firehoseRequestID(ctx, ""), e.Message)
	}
}

// firehoseAuth lets the stream's access key act as the bearer token: the
// key is the only credential Firehose can send. An Authorization header,
// when present, wins (curl and tests may use either). It reports whether
// the request carries neither.
func firehoseAuth(ctx *fasthttp.RequestCtx) (missing bool) {
	h := &ctx.Request.Header
	if len(h.Peek(fasthttp.HeaderAuthorization)) > 0 {
		return false
	}
	key := bytes.TrimSpace(h.Peek(firehoseKeyHeader))
	if len(key) == 0 {
		return true
	}
	h.Set(fasthttp.HeaderAuthorization, "Bearer "+string(key))
	return false
}

func writeFirehose(ctx *fasthttp.RequestCtx, status int, id, msg string) {
	buf, err := jsonAPI.Marshal(firehoseResponse{RequestID: id, Timestamp: time.Now().UnixMilli(), ErrorMessage: msg})
	if err != nil {
		status, buf = http.StatusInternalServerError, []byte(`{"requestId":"","timestamp":0,"errorMessage":"cannot encode the answer"}`)
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentTypeJSON)
	ctx.SetBody(buf)
}

// firehoseRequestID is the id the answer must echo: the header's (kept
// the same across retries of one batch), else the body's.
func firehoseRequestID(ctx *fasthttp.RequestCtx, body string) string {
	if v := ctx.Request.Header.Peek(firehoseRequestIDHeader); len(v) > 0 {
		return string(v)
	}
	return body
}

// handleFirehose stores the records of one delivery request. Each
// record's data is base64 (and may itself be gzip, as CloudWatch Logs
// subscriptions deliver it); firehoseBuf.events says how it becomes events.
func (s *Server) handleFirehose(c *call) error {
	start := time.Now()
	name, sets, err := s.ingestTarget(c)
	if err != nil {
		return err
	}
	settings, err := s.settings(sets, name)
	if err != nil {
		return err
	}
	opts, err := s.ingestOptions(c, settings, start)
	if err != nil {
		return err
	}
	opts.Format = db.NDJSON
	body, err := s.ingestBody(c)
	if err != nil {
		return err
	}
	buf := getFirehoseBuf()
	defer putFirehoseBuf(buf)
	events, bodyID, err := buf.delivery(body, s.cfg.MaxBodyBytes)
	if err != nil {
		return err
	}
	id := firehoseRequestID(c.RequestCtx, bodyID)
	res, err := sets.Ingest(name, events, opts)
	if err != nil {
		var se *db.SyntaxError
		var ae *db.AppendError
		switch {
		case errors.As(err, &se):
			return badRequest("invalid JSON record: %v", se)
		case errors.As(err, &ae):
			return s.storeFailed(name, ae.Err)
		case errors.Is(err, db.ErrNotFound):
			return notFound("dataset %q not found", name)
		}
		return badRequest("%v", err)
	}
	if res.Failed > 0 {
		// Firehose has no per-record answer, and a non-200 would send the
		// stored events again: the failures go to the log, as on /ingest
		// they go to the caller.
		fmt.Fprintf(s.cfg.Log, "aplite: firehose request %s into %s: %d of %d events failed, first: %s\n",
			id, name, res.Failed, res.Failed+res.Ingested, res.Failures[0].Error)
	}
	m := s.metrics
	m.ingestRequests.Add(1)
	m.ingestEvents.Add(int64(res.Ingested))
	m.ingestFailed.Add(int64(res.Failed))
	m.ingestBytes.Add(res.ProcessedBytes)
	m.ingestLatency.observe(time.Since(start))
	writeFirehose(c.RequestCtx, http.StatusOK, id, "")
	return nil
}

// delivery returns the NDJSON of body's records and its requestId: read
// by scanDelivery when the body has Firehose's one shape, else decoded
// whole by sonic and then record by record.
func (b *firehoseBuf) delivery(body []byte, limit int64) ([]byte, string, error) {
	if events, id, ok := b.scanDelivery(body, limit); ok {
		return events, string(id), nil
	}
	// The records go into the buffer's slice, which keeps its capacity.
	req := firehoseRequest{Records: b.recs[:0]}
	defer b.keepRecords(&req)
	// The records' strings point into body, which outlives them; sonic's
	// Unmarshal would first copy the whole body.
	if err := firehoseJSON.UnmarshalFromString(unsafe.String(unsafe.SliceData(body), len(body)), &req); err != nil {
		return nil, "", envelopeError(body)
	}
	events, err := b.events(req.Records, limit)
	return events, req.RequestID, err
}

// envelopeError says what is wrong with a body that is not Firehose's
// envelope. encoding/json reads it again for that, on this failure path
// only: its errors name the offset and the field, sonic's quote an excerpt.
func envelopeError(body []byte) error {
	var req firehoseRequest
	err := json.Unmarshal(body, &req)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return badRequest("invalid Firehose request body: invalid JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te) && te.Field == "":
		return badRequest("invalid Firehose request body: a JSON %s, not the object {requestId, timestamp, records}", te.Value)
	case errors.As(err, &te):
		return badRequest("invalid Firehose request body at byte %d: %s is a %s, not a %s", te.Offset, te.Field, te.Value, te.Type)
	case err != nil:
		return badRequest("invalid Firehose request body: %v", err)
	}
	return badRequest("invalid Firehose request body")
}

// recordField names record i in error messages.
func recordField(i int) string { return "records[" + strconv.Itoa(i) + "].data" }
