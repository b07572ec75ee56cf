package server

import (
	"errors"
	"net/http"
	"strings"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/db/otlp"
)

// OTLP/HTTP: the export bodies of the three signals are stored by
// db/otlp (decoded by core/ingest/otlp) into events of the dataset named by the
// X-Axiom-Dataset header; this file only routes, authorizes and answers.

// otlpIsJSON tells how the body is encoded.
func otlpIsJSON(c *call) (bool, error) {
	ct := strings.ToLower(string(c.Request.Header.ContentType()))
	mt, _, _ := strings.Cut(ct, ";")
	switch strings.TrimSpace(mt) {
	case "application/x-protobuf", "application/protobuf", "":
		return false, nil
	case "application/json":
		return true, nil
	}
	return false, errorf(http.StatusUnsupportedMediaType, "unsupported content type %q: use application/x-protobuf or application/json", ct)
}

// otlpTarget resolves and authorizes the dataset of an OTLP request.
func (s *Server) otlpTarget(c *call) (string, error) {
	name := strings.TrimSpace(string(c.Request.Header.Peek("X-Axiom-Dataset")))
	if name == "" {
		name = strings.TrimSpace(string(c.Request.Header.Peek("X-Service-Dataset")))
	}
	if name == "" {
		return "", badRequest("missing X-Axiom-Dataset header: name the dataset to write to")
	}
	if err := c.p.requireDataset(name, capIngest, actCreate, "ingest into"); err != nil {
		return "", err
	}
	if err := s.checkLimit(c.p.org, limitIngest); err != nil {
		return "", err
	}
	if !c.datasets().Has(name) {
		return "", notFound("dataset %q not found", name)
	}
	return name, nil
}

// handleOTLP stores an export body of signal sig and answers with an
// empty response message in the request's encoding, as OTLP/HTTP
// requires.
func (s *Server) handleOTLP(c *call, sig otlp.Signal) error {
	name, err := s.otlpTarget(c)
	if err != nil {
		return err
	}
	isJSON, err := otlpIsJSON(c)
	if err != nil {
		return err
	}
	body, err := s.requestBody(c.RequestCtx)
	if err != nil {
		return err
	}
	res, err := c.datasets().IngestOTLP(name, body, sig, isJSON)
	var oe *otlp.Error
	var ae *db.AppendError
	switch {
	case errors.As(err, &oe):
		return badRequest("%v", oe)
	case errors.As(err, &ae):
		return ae.Err // read, but not stored: the server's fault, not the body's
	case errors.Is(err, db.ErrNotFound):
		return notFound("dataset %q not found", name)
	case err != nil:
		return err
	}
	if res.Ingested > 0 {
		s.metrics.ingestRequests.Add(1)
		s.metrics.ingestEvents.Add(int64(res.Ingested))
	}
	c.SetStatusCode(http.StatusOK)
	if isJSON {
		c.SetContentType(contentTypeJSON)
		c.SetBodyString("{}")
	} else {
		c.SetContentType("application/x-protobuf")
		c.Response.ResetBody()
	}
	return nil
}

func (s *Server) handleOTLPTraces(c *call) error  { return s.handleOTLP(c, otlp.Traces) }
func (s *Server) handleOTLPLogs(c *call) error    { return s.handleOTLP(c, otlp.Logs) }
func (s *Server) handleOTLPMetrics(c *call) error { return s.handleOTLP(c, otlp.Metrics) }
