package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

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
	body, err := s.ingestBody(c)
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
		return s.storeFailed(name, ae.Err) // read, but not stored: the server's fault, not the body's
	case errors.Is(err, db.ErrNotFound):
		return notFound("dataset %q not found", name)
	case err != nil:
		return err
	}
	if res.Ingested > 0 {
		s.metrics.ingestRequests.Add(1)
		s.metrics.ingestEvents.Add(int64(res.Ingested))
	}
	s.metrics.ingestFailed.Add(int64(res.Failed))
	c.SetStatusCode(http.StatusOK)
	if isJSON {
		c.SetContentType(contentTypeJSON)
		c.SetBody(otlpAnswerJSON(sig, res))
	} else {
		c.SetContentType("application/x-protobuf")
		c.SetBody(otlpAnswerProto(res))
	}
	return nil
}

// The OTLP/HTTP answer is an empty Export*ServiceResponse, or one with
// partial_success (field 1: rejected count, field 1, and error_message,
// field 2, the same numbers for every signal) when some events were
// refused, as by the dataset's field limit: the exporter logs it, so no
// span is dropped without a word.

// otlpRejected names the rejected count of each signal's partial success
// in the JSON form.
var otlpRejected = map[otlp.Signal]string{otlp.Traces: "rejectedSpans", otlp.Logs: "rejectedLogRecords", otlp.Metrics: "rejectedDataPoints"}

func otlpAnswerJSON(sig otlp.Signal, res db.IngestResult) []byte {
	if res.Failed == 0 {
		return []byte("{}")
	}
	b, _ := json.Marshal(map[string]any{"partialSuccess": map[string]any{
		otlpRejected[sig]: strconv.Itoa(res.Failed), "errorMessage": otlpFailure(res)}})
	return b
}

func otlpAnswerProto(res db.IngestResult) []byte {
	if res.Failed == 0 {
		return nil
	}
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, uint64(res.Failed))
	ps = protowire.AppendTag(ps, 2, protowire.BytesType)
	ps = protowire.AppendString(ps, otlpFailure(res))
	out := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(out, ps)
}

// otlpFailure is the first refusal's reason, with how many there were.
func otlpFailure(res db.IngestResult) string {
	msg := strconv.Itoa(res.Failed) + " events refused"
	if len(res.Failures) > 0 {
		msg += "; the first: " + res.Failures[0].Error
	}
	return msg
}

func (s *Server) handleOTLPTraces(c *call) error  { return s.handleOTLP(c, otlp.Traces) }
func (s *Server) handleOTLPLogs(c *call) error    { return s.handleOTLP(c, otlp.Logs) }
func (s *Server) handleOTLPMetrics(c *call) error { return s.handleOTLP(c, otlp.Metrics) }
