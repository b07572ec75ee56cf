package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aplite/aplite/db"
	"github.com/aplite/aplite/server/meta"
)

// ingestStatus is the IngestStatus shape (strict in axiom-go).
type ingestStatus struct {
	Ingested       int          `json:"ingested"`
	Failed         int          `json:"failed"`
	Failures       []db.Failure `json:"failures"`
	ProcessedBytes int64        `json:"processedBytes"`
	BlocksCreated  int          `json:"blocksCreated"`
	WALLength      int64        `json:"walLength"`
}

// ingestTarget makes the checks every ingest door makes before it reads
// a body: the server takes writes, the caller may ingest into the route's
// dataset and is under its org's ingest limit, and the dataset exists (a
// 404 before the body is read).
func (s *Server) ingestTarget(c *call) (string, orgDatasets, error) {
	if err := s.writable(); err != nil {
		return "", orgDatasets{}, err
	}
	name := c.param("id")
	if err := c.p.requireDataset(name, capIngest, actCreate, "ingest into"); err != nil {
		return "", orgDatasets{}, err
	}
	if err := s.checkLimit(c.p.org, limitIngest); err != nil {
		return "", orgDatasets{}, err
	}
	sets := c.datasets()
	if _, err := sets.Info(name); err != nil {
		return "", orgDatasets{}, notFound("dataset %q not found", name)
	}
	return name, sets, nil
}

// handleIngest decodes a JSON, NDJSON or CSV body (possibly gzip or zstd)
// straight into column builders and appends the batch durably before
// answering. It is the hot path: the body is read once, never copied when
// uncompressed, and decompressed into a pooled buffer otherwise.
func (s *Server) handleIngest(c *call) error {
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
	body, err := s.ingestBody(c)
	if err != nil {
		return err
	}
	res, err := sets.Ingest(name, body, opts)
	if err != nil {
		var se *db.SyntaxError
		var ae *db.AppendError
		switch {
		case errors.As(err, &se):
			return &apiError{Status: http.StatusBadRequest, Message: "invalid " + formatName(res.Format) + " body: " + se.Error(),
				Detail: map[string]any{"line": se.Line, "column": se.Column, "offset": se.Offset}}
		case errors.As(err, &ae):
			return s.storeFailed(name, ae.Err) // read, but not stored: the server's fault, not the body's
		case errors.Is(err, db.ErrNotFound):
			return notFound("dataset %q not found", name)
		}
		return badRequest("%v", err)
	}
	st := ingestStatus{Ingested: res.Ingested, Failed: res.Failed, Failures: res.Failures,
		ProcessedBytes: res.ProcessedBytes, BlocksCreated: res.Append.BlocksCreated, WALLength: res.Append.WALLength}
	if st.Failures == nil {
		st.Failures = []db.Failure{}
	}
	m := s.metrics
	m.ingestRequests.Add(1)
	m.ingestEvents.Add(int64(res.Ingested))
	m.ingestFailed.Add(int64(res.Failed))
	m.ingestBytes.Add(res.ProcessedBytes)
	m.ingestLatency.observe(time.Since(start))
	return writeJSON(c.RequestCtx, http.StatusOK, st)
}

// ingestOptions reads the query parameters and headers of an ingest
// request. Format db.Sniff means "sniff the body".
func (s *Server) ingestOptions(c *call, settings *meta.DatasetSettings, now time.Time) (db.IngestOptions, error) {
	args := c.QueryArgs()
	opts := db.IngestOptions{
		TimestampField:  string(args.Peek("timestamp-field")),
		TimestampFormat: string(args.Peek("timestamp-format")),
		Now:             now.UnixNano(),
	}
	ct := string(c.Request.Header.ContentType())
	switch mt, _, _ := strings.Cut(strings.ToLower(ct), ";"); strings.TrimSpace(mt) {
	case "", "application/octet-stream", "text/plain":
		opts.Format = db.Sniff
	default:
		f, err := db.FormatFromContentType(ct)
		if err != nil {
			return opts, errorf(http.StatusUnsupportedMediaType, "%v", err)
		}
		opts.Format = f
	}
	if d := args.Peek("csv-delimiter"); len(d) > 0 {
		r, size := utf8.DecodeRune(d)
		if size != len(d) || r == utf8.RuneError || r == '"' || r == '\n' || r == '\r' {
			return opts, badRequest("csv-delimiter must be a single character, got %q", d)
		}
		opts.CSVDelimiter = r
	}
	if v := c.Request.Header.Peek("X-Axiom-CSV-Fields"); len(v) > 0 {
		opts.CSVFields = db.SplitCSVFields(string(v))
	}
	if v := c.Request.Header.Peek("X-Axiom-Event-Labels"); len(v) > 0 {
		labels, err := db.ParseLabels(string(v))
		if err != nil {
			return opts, badRequest("X-Axiom-Event-Labels: %v", err)
		}
		opts.Labels = labels
		opts.LabelsHeaderLen = len(v)
	}
	if len(settings.MapFields) > 0 {
		opts.MapFields = make(map[string]bool, len(settings.MapFields))
		for _, f := range settings.MapFields {
			opts.MapFields[f] = true
		}
	}
	return opts, nil
}

func formatName(f db.Format) string {
	switch f {
	case db.JSON:
		return "JSON"
	case db.NDJSON:
		return "NDJSON"
	case db.CSV:
		return "CSV"
	}
	return "ingest"
}

// storeFailed answers an ingest whose events were read but not stored.
// Nothing of the request was kept, so a retry stores it once. A full disk
// is 507 with Retry-After (the clients retry 5xx; appends resume by
// themselves once space is freed); anything else is 500. The body never
// carries the error's text, which names the server's files; the log does.
func (s *Server) storeFailed(dataset string, err error) error {
	fmt.Fprintf(s.cfg.Log, "aplite: ingest into %s not stored: %v\n", dataset, err)
	if errors.Is(err, db.ErrLeaseLost) {
		return leaseLost(err)
	}
	if errors.Is(err, db.ErrNoSpace) {
		s.metrics.ingestNoSpace.Add(1)
		return &apiError{Status: http.StatusInsufficientStorage, Headers: [][2]string{{"Retry-After", "10"}},
			Message: "the server's disk is full: none of these events were stored; retry once space is freed"}
	}
	return errorf(http.StatusInternalServerError, "storing the events failed: none of them were stored (the server log has the cause)")
}
