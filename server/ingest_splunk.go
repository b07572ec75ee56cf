package server

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
)

// Splunk's HTTP Event Collector (HEC), as Axiom's send-data/splunk-hec.mdx
// describes it: Splunk forwarders, logging libraries and the OpenTelemetry
// splunk_hec exporter post envelopes to /services/collector/event (or raw
// lines to /services/collector/raw) with "Authorization: Splunk TOKEN".
// The envelopes are rewritten into NDJSON (core/ingest/hec.go) and stored
// through the same db ingest as /v1/ingest/{id}: same permissions, limits,
// field caps and durability. What differs is the answer: always HEC's
// {"text","code"} body, which HEC clients read, with Splunk's statuses.

// HEC status codes and texts (Splunk's "Troubleshoot HTTP Event Collector").
const (
	hecSuccess       = 0
	hecTokenRequired = 2
	hecInvalidAuth   = 3
	hecInvalidToken  = 4
	hecNoData        = 5
	hecInvalidFormat = 6
	hecIncorrectIdx  = 7
	hecInternal      = 8
	hecBusy          = 9
	hecHealthy       = 17
)

var hecTexts = map[int]string{
	hecSuccess:       "Success",
	hecTokenRequired: "Token is required",
	hecInvalidAuth:   "Invalid authorization",
	hecInvalidToken:  "Invalid token",
	hecNoData:        "No data",
	hecInvalidFormat: "Invalid data format",
	hecIncorrectIdx:  "Incorrect index",
	hecInternal:      "Internal server error",
	hecBusy:          "Server is busy",
	12:               "Event field is required",
	13:               "Event field cannot be blank",
	15:               "Error in handling indexed fields",
	hecHealthy:       "HEC is healthy",
}

// hecBody is HEC's answer. Detail is aplite's own account of what is
// wrong (the field, the position), which Splunk's fixed texts lack.
type hecBody struct {
	Text         string `json:"text"`
	Code         int    `json:"code"`
	InvalidEvent *int   `json:"invalid-event-number,omitempty"`
	Detail       string `json:"detail,omitempty"`
}

// hecError is a refusal with its HEC code; event is the envelope at
// fault (Splunk's invalid-event-number), -1 for none.
type hecError struct {
	status, code, event int
	detail              string
}

func (e *hecError) Error() string { return e.detail }

func hecErr(status, code int, format string, args ...any) *hecError {
	return &hecError{status: status, code: code, event: -1, detail: fmt.Sprintf(format, args...)}
}

// hecRoutes registers the HEC endpoints and their /1.0 spellings.
func (s *Server) hecRoutes(r *router.Router) {
	event := s.hecRoute("hec_event", s.handleHECEvent)
	raw := s.hecRoute("hec_raw", s.handleHECRaw)
	health := s.wrap("hec_health", authNone, func(c *call) error {
		return writeHEC(c.RequestCtx, http.StatusOK, hecHealthy, -1, "", nil)
	})
	for _, p := range []string{"/services/collector", "/services/collector/event", "/services/collector/event/1.0"} {
		r.POST(p, event)
	}
	for _, p := range []string{"/services/collector/raw", "/services/collector/raw/1.0"} {
		r.POST(p, raw)
	}
	for _, p := range []string{"/services/collector/health", "/services/collector/health/1.0"} {
		r.GET(p, health)
	}
}

// isHECPath reports whether path is one of HEC's, for the answers given
// before a route is found.
func isHECPath(path []byte) bool {
	return bytes.HasPrefix(path, []byte("/services/collector"))
}

// hecAnsweredKey marks a request the handler answered in HEC's shape.
const hecAnsweredKey = "aplite.hec"

// hecRoute serves h through wrap, like every route (trace id,
// authentication, rate limits, metrics), with HEC's two differences: the
// Splunk and Basic schemes are read as the token before authentication,
// and an answer the middleware gave (a refused token, a rate limit) is
// rewritten into HEC's shape, its status kept but for the ones HEC
// clients read differently.
func (s *Server) hecRoute(name string, h handlerFunc) fasthttp.RequestHandler {
	inner := s.wrap(name, authOrg, func(c *call) error {
		c.SetUserValue(hecAnsweredKey, true)
		if err := h(c); err != nil {
			writeHECError(c.RequestCtx, err)
		}
		return nil
	})
	return func(ctx *fasthttp.RequestCtx) {
		auth := hecAuth(ctx)
		inner(ctx)
		if ctx.UserValue(hecAnsweredKey) != nil {
			ctx.RemoveUserValue(hecAnsweredKey)
			return
		}
		var e errorBody
		if err := jsonAPI.Unmarshal(ctx.Response.Body(), &e); err != nil {
			e.Message = http.StatusText(ctx.Response.StatusCode())
		}
		status := ctx.Response.StatusCode()
		if status == http.StatusForbidden && auth != hecAuthGiven {
			// HEC says 401 for a token missing or in a scheme it does not know.
			code := map[int]int{hecAuthMissing: hecTokenRequired, hecAuthScheme: hecInvalidAuth}[auth]
			writeHEC(ctx, http.StatusUnauthorized, code, -1, "use \"Authorization: Splunk TOKEN\", Bearer TOKEN or Basic base64(x:TOKEN)", nil)
			return
		}
		writeHECError(ctx, &apiError{Status: status, Message: e.Message})
	}
}

// How a request presented its token.
const (
	hecAuthGiven   = iota // Splunk, Bearer or Basic: now a Bearer header
	hecAuthMissing        // no Authorization header
	hecAuthScheme         // a header HEC does not accept
)

// hecAuth rewrites the Splunk and Basic (any user, the token as password)
// schemes into the Bearer header authenticate reads; a header it cannot
// read is removed, so authentication refuses the request.
func hecAuth(ctx *fasthttp.RequestCtx) int {
	h := bytes.TrimSpace(ctx.Request.Header.Peek(fasthttp.HeaderAuthorization))
	if len(h) == 0 {
		return hecAuthMissing
	}
	scheme, cred, _ := bytes.Cut(h, []byte{' '})
	cred = bytes.TrimSpace(cred)
	var token []byte
	switch {
	case len(cred) == 0:
	case bytes.EqualFold(scheme, []byte("Splunk")), bytes.EqualFold(scheme, []byte("Bearer")):
		token = cred
	case bytes.EqualFold(scheme, []byte("Basic")):
		if dec, err := base64.StdEncoding.DecodeString(string(cred)); err == nil {
			if _, pw, ok := bytes.Cut(dec, []byte{':'}); ok {
				token = pw
			}
		}
	}
	if len(token) == 0 {
		ctx.Request.Header.Del(fasthttp.HeaderAuthorization)
		return hecAuthScheme
	}
	ctx.Request.Header.Set(fasthttp.HeaderAuthorization, "Bearer "+string(token))
	return hecAuthGiven
}

// writeHEC answers status with HEC's body for code.
func writeHEC(ctx *fasthttp.RequestCtx, status, code, event int, detail string, headers [][2]string) error {
	b := hecBody{Text: hecTexts[code], Code: code, Detail: detail}
	if event >= 0 {
		b.InvalidEvent = &event
	}
	for _, h := range headers {
		ctx.Response.Header.Set(h[0], h[1])
	}
	return writeJSON(ctx, status, b)
}

var hecSuccessBody = []byte(`{"text":"Success","code":0}`)

// writeHECError answers err in HEC's shape. An aplite error keeps its
// status, with the HEC code of its kind; a rate or ingest limit is 429
// (HEC clients back off on 429 and do not know Axiom's 430).
func writeHECError(ctx *fasthttp.RequestCtx, err error) {
	var he *hecError
	if errors.As(err, &he) {
		writeHEC(ctx, he.status, he.code, he.event, he.detail, nil)
		return
	}
	ae := asAPIError(err)
	status, code := ae.Status, hecInvalidFormat
	switch {
	case status == http.StatusTooManyRequests || status == 430:
		status, code = http.StatusTooManyRequests, hecBusy
	case status == http.StatusForbidden:
		code = hecInvalidToken
	case status >= 500 && status != http.StatusInternalServerError:
		code = hecBusy // a full disk, a lost lease: retry later
	case status >= 500:
		code = hecInternal
	}
	writeHEC(ctx, status, code, -1, ae.Message, ae.Headers)
}

// hecBufs holds the NDJSON a HEC body is rewritten into.
var hecBufs = sync.Pool{New: func() any { return new([]byte) }}

// hecBuf is a pooled buffer with room for the NDJSON of a body of n
// bytes, which is about as long: growing one by appends would copy it
// over and over.
func hecBuf(n int) *[]byte {
	buf := hecBufs.Get().(*[]byte)
	if want := n + n/4 + 256; cap(*buf) < want {
		*buf = make([]byte, 0, want)
	}
	return buf
}

// handleHECEvent stores a body of HEC envelopes: decoded straight into
// rows when its dataset is settled before the decode (hecEventDirect),
// else rewritten into NDJSON first, which is also where a refused body
// is answered.
func (s *Server) handleHECEvent(c *call) error {
	body, err := s.hecBody(c)
	if err != nil {
		return err
	}
	if hecDirect {
		if done, err := s.hecEventDirect(c, body); done {
			return err
		}
	}
	buf := hecBuf(len(body))
	defer hecBufs.Put(buf)
	nd, batch, err := db.HECEvents((*buf)[:0], body)
	if err != nil {
		return hecRefused(err)
	}
	*buf = nd
	name := string(c.QueryArgs().Peek("index"))
	if name == "" {
		name = batch.Index
	}
	return s.hecStore(c, name, nd, len(body), batch.Events)
}

// hecDirect turns the direct decode of HEC bodies on; tests turn it off
// to hold it to the NDJSON path, and read hecDirectBodies, the bodies it
// took, to know it was not bypassed.
var (
	hecDirect       = true
	hecDirectBodies atomic.Int64
)

// hecEventDirect stores body decoded straight into rows (db.IngestHEC:
// no NDJSON copy, one pass over the envelopes) when its dataset can be
// settled first: the ?index= one, the first envelope's index or the
// token's one dataset, which the token may ingest into and which exists.
// Otherwise it reports false having done nothing, and the NDJSON path
// answers in its own order (a body HEC refuses before a dataset it does
// not find). The rate limit is taken once the body has decoded, as that
// path takes it once the body has converted.
func (s *Server) hecEventDirect(c *call, body []byte) (bool, error) {
	start := time.Now()
	name := string(c.QueryArgs().Peek("index"))
	if name == "" {
		idx, ok := db.HECFirstIndex(body)
		if !ok {
			return false, nil
		}
		name = idx
	}
	if name == "" {
		name = soleIngestDataset(c.p)
	}
	if name == "" || !c.p.canDataset(name, capIngest, actCreate) {
		return false, nil
	}
	sets := c.datasets()
	if _, err := sets.Info(name); err != nil {
		return false, nil
	}
	settings, err := s.settings(sets, name)
	if err != nil {
		return false, nil
	}
	hecDirectBodies.Add(1)
	res, batch, err := sets.IngestHEC(name, body, hecOptions(settings.MapFields, start), func() error {
		if err := s.checkLimit(c.p.org, limitIngest); err != nil {
			return err
		}
		s.setLimitHeaders(c.RequestCtx, c.p.org, limitIngest)
		return nil
	})
	var he *db.HECError
	if errors.As(err, &he) {
		return true, hecRefused(err)
	}
	return true, s.hecAnswer(c, name, res, err, len(body), batch.Events, start)
}

// hecRefused answers a body HEC refuses (a *db.HECError) with 400 and its
// code; any other error as it is.
func hecRefused(err error) error {
	var he *db.HECError
	if errors.As(err, &he) {
		return &hecError{status: http.StatusBadRequest, code: he.Code, event: he.Event, detail: he.Error()}
	}
	return err
}

// IngestHEC stores a body of HEC envelopes in one of the org's datasets
// (db.IngestHEC).
func (v orgDatasets) IngestHEC(name string, body []byte, opts db.IngestOptions, admit func() error) (db.IngestResult, db.HECBatch, error) {
	k, ok := v.key(name)
	if !ok {
		return db.IngestResult{}, db.HECBatch{}, errNoDataset(name)
	}
	return v.db.IngestHEC(k, body, opts, admit)
}

// handleHECRaw stores a raw body: one event per line, _raw holding it,
// with the host, source and sourcetype query parameters as fields. A
// JSON body (Content-Type application/json) is one event, as Axiom's
// page says: an object's members become its fields, any other value _raw.
func (s *Server) handleHECRaw(c *call) error {
	body, err := s.hecBody(c)
	if err != nil {
		return err
	}
	var meta []byte
	args := c.QueryArgs()
	for _, k := range []string{"host", "source", "sourcetype"} {
		if v := args.Peek(k); len(v) > 0 {
			if len(meta) > 0 {
				meta = append(meta, ',')
			}
			meta = append(meta, '"')
			meta = append(meta, k...)
			meta = append(meta, `":`...)
			meta = db.AppendJSONString(meta, v)
		}
	}
	buf := hecBuf(len(body))
	defer hecBufs.Put(buf)
	var nd []byte
	var n int
	if mt, _, _ := strings.Cut(strings.ToLower(string(c.Request.Header.ContentType())), ";"); strings.TrimSpace(mt) == "application/json" {
		env := make([]byte, 0, len(body)+len(meta)+16)
		env = append(append(env, `{"event":`...), body...)
		if len(meta) > 0 {
			env = append(append(env, ','), meta...)
		}
		env = append(env, '}')
		var batch db.HECBatch
		if nd, batch, err = db.HECEvents((*buf)[:0], env); err != nil {
			return &hecError{status: http.StatusBadRequest, code: hecInvalidFormat, event: 0, detail: "the JSON body: " + err.Error()}
		}
		n = batch.Events
		*buf = nd
	} else {
		nd, n = db.HECRaw((*buf)[:0], body, meta)
		*buf = nd
	}
	return s.hecStore(c, string(args.Peek("index")), nd, len(body), n)
}

// hecBody is the request's body, decompressed, once the memory its
// decoding takes is reserved as every ingest door reserves it (out of
// memory: 429 with Retry-After, HEC's "Server is busy"); an empty one is
// HEC's "No data".
func (s *Server) hecBody(c *call) ([]byte, error) {
	if err := s.writable(); err != nil {
		// Behind a load balancer another node may take it: HEC's "busy".
		return nil, hecErr(http.StatusServiceUnavailable, hecBusy, "this node serves queries only (role query): send HEC requests to an ingest node")
	}
	body, err := s.ingestBody(c)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, hecErr(http.StatusBadRequest, hecNoData, "the request body is empty")
	}
	return body, nil
}

// hecStore resolves the dataset (the index the request or its first
// envelope names, else the one dataset the token may ingest into) and
// stores the NDJSON events there as /v1/ingest/{id} would. bodyLen is the
// HEC body's decompressed size, the processed bytes.
func (s *Server) hecStore(c *call, name string, nd []byte, bodyLen, events int) error {
	start := time.Now()
	if name == "" {
		name = soleIngestDataset(c.p)
	}
	if name == "" {
		return hecErr(http.StatusBadRequest, hecIncorrectIdx,
			"no dataset: name it with ?index=DATASET or the first event's \"index\", or use a token that may ingest into exactly one dataset")
	}
	if !c.p.canDataset(name, capIngest, actCreate) {
		return hecErr(http.StatusForbidden, hecIncorrectIdx, "token is not allowed to ingest into dataset %q", name)
	}
	if err := s.checkLimit(c.p.org, limitIngest); err != nil {
		return err
	}
	s.setLimitHeaders(c.RequestCtx, c.p.org, limitIngest)
	sets := c.datasets()
	if _, err := sets.Info(name); err != nil {
		return hecErr(http.StatusBadRequest, hecIncorrectIdx, "dataset %q not found", name)
	}
	settings, err := s.settings(sets, name)
	if err != nil {
		return err
	}
	res, err := sets.Ingest(name, nd, hecOptions(settings.MapFields, start))
	return s.hecAnswer(c, name, res, err, bodyLen, events, start)
}

// hecOptions are the decode options of a HEC request begun at start
// into a dataset with the map fields given.
func hecOptions(mapFields []string, start time.Time) db.IngestOptions {
	opts := db.IngestOptions{Format: db.NDJSON, Now: start.UnixNano()}
	if len(mapFields) > 0 {
		opts.MapFields = make(map[string]bool, len(mapFields))
		for _, f := range mapFields {
			opts.MapFields[f] = true
		}
	}
	return opts
}

// hecAnswer answers the ingest of a HEC body into name, whatever path
// read it: the error, else success, or 400 naming the first event that
// was not stored.
func (s *Server) hecAnswer(c *call, name string, res db.IngestResult, err error, bodyLen, events int, start time.Time) error {
	var ae *db.AppendError
	switch {
	case errors.As(err, &ae):
		return s.storeFailed(name, ae.Err)
	case errors.Is(err, db.ErrNotFound):
		return hecErr(http.StatusBadRequest, hecIncorrectIdx, "dataset %q not found", name)
	case err != nil:
		return err // the rate limit, or a fault of ours, not the body's
	}
	m := s.metrics
	m.ingestRequests.Add(1)
	m.ingestEvents.Add(int64(res.Ingested))
	m.ingestFailed.Add(int64(res.Failed))
	m.ingestBytes.Add(int64(bodyLen))
	m.ingestLatency.observe(time.Since(start))
	if res.Failed > 0 {
		return hecFailed(res, events)
	}
	c.SetStatusCode(http.StatusOK)
	c.SetBody(hecSuccessBody)
	return nil
}

// hecFailed answers a body some of whose events were not stored (a time
// that does not parse, the dataset's field limit): 400 "Invalid data
// format" naming the first, as Splunk does, so a client does not resend
// the events that were stored. The NDJSON has one line per envelope, so
// the decoder's "line N" is envelope N-1.
func hecFailed(res db.IngestResult, events int) error {
	e := hecErr(http.StatusBadRequest, hecInvalidFormat, "%d of %d events were not stored (the others were)", res.Failed, events)
	if len(res.Failures) > 0 {
		msg := res.Failures[0].Error
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			if num, why, ok := strings.Cut(rest, ": "); ok {
				if n, err := strconv.Atoi(num); err == nil {
					e.event, msg = n-1, why
				}
			}
		}
		e.detail += "; the first: " + msg
	}
	return e
}

// soleIngestDataset is the dataset an API token may ingest into when it
// names exactly one (not "*"); "" otherwise.
func soleIngestDataset(p *principal) string {
	if p.personal() {
		return ""
	}
	name := ""
	for ds := range p.tok.DatasetCapabilities {
		if !p.canDataset(ds, capIngest, actCreate) {
			continue
		}
		if ds == "*" || name != "" {
			return ""
		}
		name = ds
	}
	return name
}
