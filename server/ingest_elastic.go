package server

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// The Elasticsearch door (Axiom's "Elasticsearch Bulk API" page): shippers
// that speak only Elasticsearch (Beats, Logstash, Fluentd, Fluent Bit,
// syslog-ng) are pointed at /v1/ingest/{dataset}/elastic as their host.
// They probe it (GET / for the version, _license, index templates and ILM
// policies, which aplite does not keep) and post _bulk bodies, whose
// documents take the front door of /v1/ingest/{id}: the same permission
// (ingest into that dataset), rate limit, body limits, decoder, field cap
// and durable append. The answer is Elasticsearch's, one status per item,
// so a shipper retries only what failed; @timestamp is the event time.

// elasticPrefix is the host path a shipper is given, {id} the dataset.
const elasticPrefix = "/v1/ingest/{id}/elastic"

// elasticVersion is the Elasticsearch version the door reports. Shippers
// check the major version before they send; 7.17 is the last release every
// Beats 7 and 8 (with allow_older_versions, as Axiom's page says),
// Logstash and Fluentd output accepts.
const elasticVersion = "7.17.0"

// elasticRoutes registers the door's routes on r.
func (s *Server) elasticRoutes(r interface {
	GET(string, fasthttp.RequestHandler)
	HEAD(string, fasthttp.RequestHandler)
	POST(string, fasthttp.RequestHandler)
	PUT(string, fasthttp.RequestHandler)
}) {
	bulk := s.elastic("ingest_elastic", s.handleElasticBulk)
	for _, p := range []string{elasticPrefix + "/_bulk", elasticPrefix + "/{index}/_bulk"} {
		r.POST(p, bulk)
		r.PUT(p, bulk)
	}
	info := s.elastic("elastic_probe", s.handleElasticInfo)
	r.GET(elasticPrefix, info)
	r.HEAD(elasticPrefix, info)
	r.GET(elasticPrefix+"/_license", s.elastic("elastic_probe", s.handleElasticLicense))
	r.GET(elasticPrefix+"/_cluster/health", s.elastic("elastic_probe", s.handleElasticHealth))
	absent, accept := s.elastic("elastic_probe", s.handleElasticAbsent), s.elastic("elastic_probe", s.handleElasticAccept)
	for _, p := range []string{"/_template/{name}", "/_index_template/{name}", "/_ilm/policy/{name}", "/_ingest/pipeline/{name}"} {
		r.GET(elasticPrefix+p, absent)
		r.HEAD(elasticPrefix+p, absent)
		r.PUT(elasticPrefix+p, accept)
	}
}

// elasticRoot answers the version probe at the prefix with a trailing
// slash (Logstash asks for "/", Beats for the bare host path), which the
// router cannot hold beside the bare path; any other path goes to
// notFound.
func (s *Server) elasticRoot(notFound fasthttp.RequestHandler) fasthttp.RequestHandler {
	info := s.elastic("elastic_probe", s.handleElasticInfo)
	return func(ctx *fasthttp.RequestCtx) {
		rest, ok := bytes.CutPrefix(ctx.Path(), []byte("/v1/ingest/"))
		id, ok2 := bytes.CutSuffix(rest, []byte("/elastic/"))
		if ok && ok2 && len(id) > 0 && bytes.IndexByte(id, '/') < 0 && (ctx.IsGet() || ctx.IsHead()) {
			ctx.SetUserValue("id", string(id))
			info(ctx)
			return
		}
		notFound(ctx)
	}
}

// elastic wraps a handler of the door: the credentials Elasticsearch
// shippers send are read as the API token, the caller must be allowed to
// ingest into the dataset, and every answer carries the product header
// Elasticsearch clients since 7.14 check.
func (s *Server) elastic(name string, h handlerFunc) fasthttp.RequestHandler {
	inner := s.wrap(name, authOrg, func(c *call) error {
		c.Response.Header.Set("X-Elastic-Product", "Elasticsearch")
		if err := s.elasticTarget(c); err != nil {
			return err
		}
		return h(c)
	})
	return func(ctx *fasthttp.RequestCtx) {
		elasticBearer(&ctx.Request.Header)
		inner(ctx)
	}
}

// elasticBearer rewrites the credentials of an Elasticsearch shipper into
// the bearer token the rest of the server authenticates: Basic auth with
// the token as password (Logstash, Fluentd, Fluent Bit, syslog-ng:
// user "axiom", password the token, as Axiom's pages configure them) and
// an API key "id:token" (Beats' api_key: 'axiom:TOKEN'). Anything else is
// left as it is, so a Bearer token works too and a bad header fails as it
// would elsewhere.
func elasticBearer(h *fasthttp.RequestHeader) {
	v := h.Peek(fasthttp.HeaderAuthorization)
	scheme, cred, ok := bytes.Cut(bytes.TrimSpace(v), []byte{' '})
	if !ok || !(bytes.EqualFold(scheme, []byte("basic")) || bytes.EqualFold(scheme, []byte("apikey"))) {
		return
	}
	raw, err := base64.StdEncoding.DecodeString(string(bytes.TrimSpace(cred)))
	if err != nil {
		return
	}
	_, secret, ok := bytes.Cut(raw, []byte{':'})
	if !ok {
		return
	}
	h.Set(fasthttp.HeaderAuthorization, "Bearer "+string(secret))
}

// elasticTarget checks that the caller may ingest into the door's dataset
// and that it exists, so a shipper with the wrong token or dataset fails
// at its first probe rather than at its first batch.
func (s *Server) elasticTarget(c *call) error {
	name := c.param("id")
	if err := c.p.requireDataset(name, capIngest, actCreate, "ingest into"); err != nil {
		return err
	}
	if !c.datasets().Has(name) {
		return notFound("dataset %q not found", name)
	}
	return nil
}

// handleElasticBulk stores the documents of a bulk body and answers with
// one item per action.
func (s *Server) handleElasticBulk(c *call) error {
	if err := s.writable(); err != nil {
		return err
	}
	start := time.Now()
	name := c.param("id")
	if err := s.checkLimit(c.p.org, limitIngest); err != nil {
		return elasticRetryable(err)
	}
	sets := c.datasets()
	settings, err := s.settings(sets, name)
	if err != nil {
		return err
	}
	opts, err := elasticOptions(c, settings, start)
	if err != nil {
		return err
	}
	body, err := s.ingestBody(c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("request body is required: a bulk body is action lines ({\"index\":{}}), each followed by its document")
	}
	res, err := sets.IngestBulk(name, body, opts)
	if err != nil {
		var se *db.SyntaxError
		var ae *db.AppendError
		switch {
		case errors.As(err, &se):
			return &apiError{Status: http.StatusBadRequest, Message: "invalid bulk body: " + se.Error(),
				Detail: map[string]any{"line": se.Line, "column": se.Column, "offset": se.Offset}}
		case errors.As(err, &ae):
			return s.storeFailed(name, ae.Err)
		case errors.Is(err, db.ErrNotFound):
			return notFound("dataset %q not found", name)
		}
		return badRequest("%v", err)
	}
	m := s.metrics
	m.ingestRequests.Add(1)
	m.ingestEvents.Add(int64(res.Ingested))
	m.ingestFailed.Add(int64(res.Failed))
	m.ingestBytes.Add(res.ProcessedBytes)
	m.ingestLatency.observe(time.Since(start))
	c.SetStatusCode(http.StatusOK)
	index := c.param("index") // POST /{index}/_bulk: the items' default _index
	if index == "" {
		index = name
	}
	// The answer (a megabyte for 10 000 documents) is built in the
	// response's own pooled buffer, sized once: built apart, SetBody
	// copied it there.
	dst := slices.Grow(c.Response.SwapBody(nil)[:0], bulkAnswerSize(res.Items, index))
	c.Response.SwapBody(appendBulkAnswer(dst, index, &res, time.Since(start)))
	return nil
}

// elasticRetryable turns the ingest limit's 430, which no Elasticsearch
// shipper knows, into the 429 they all retry after a pause.
func elasticRetryable(err error) error {
	var ae *apiError
	if errors.As(err, &ae) && ae.Status == 430 {
		cp := *ae
		cp.Status = http.StatusTooManyRequests
		return &cp
	}
	return err
}

// elasticOptions are the ingest options of a bulk request: @timestamp is
// the time field unless timestamp-field names another (Axiom's Beats page
// gives that parameter for shippers that set their own), and labels and
// map fields apply as on /v1/ingest. The content type is not read:
// shippers send application/json, application/x-ndjson or Elasticsearch's
// vendor types for the same body.
func elasticOptions(c *call, settings *meta.DatasetSettings, now time.Time) (db.IngestOptions, error) {
	args := c.QueryArgs()
	opts := db.IngestOptions{TimestampField: "@timestamp", TimestampFormat: string(args.Peek("timestamp-format")), Now: now.UnixNano()}
	if f := args.Peek("timestamp-field"); len(f) > 0 {
		opts.TimestampField = string(f)
	}
	if v := c.Request.Header.Peek("X-Axiom-Event-Labels"); len(v) > 0 {
		labels, err := db.ParseLabels(string(v))
		if err != nil {
			return opts, badRequest("X-Axiom-Event-Labels: %v", err)
		}
		opts.Labels, opts.LabelsHeaderLen = labels, len(v)
	}
	if len(settings.MapFields) > 0 {
		opts.MapFields = make(map[string]bool, len(settings.MapFields))
		for _, f := range settings.MapFields {
			opts.MapFields[f] = true
		}
	}
	return opts, nil
}

// IngestBulk stores a bulk body in one of the org's datasets
// (db.IngestBulk).
func (v orgDatasets) IngestBulk(name string, body []byte, opts db.IngestOptions) (db.BulkResult, error) {
	k, ok := v.key(name)
	if !ok {
		return db.BulkResult{}, errNoDataset(name)
	}
	return v.db.IngestBulk(k, body, opts)
}
