package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
)

// aplRequest is the body of POST /v1/datasets/_apl (clients.md §4.1).
type aplRequest struct {
	APL                string         `json:"apl"`
	StartTime          string         `json:"startTime"`
	EndTime            string         `json:"endTime"`
	Cursor             string         `json:"cursor"`
	IncludeCursor      bool           `json:"includeCursor"`
	IncludeCursorField bool           `json:"includeCursorField"`
	Variables          map[string]any `json:"variables"`
	DefaultLimit       int            `json:"defaultLimit"`
}

// queryFormat reads ?format=: legacy (the default) or tabular.
func queryFormat(c *call) (string, error) {
	f := strings.ToLower(string(c.QueryArgs().Peek("format")))
	switch f {
	case "":
		return "legacy", nil
	case "legacy", "tabular":
		return f, nil
	}
	return "", badRequest("format %q is not supported: use tabular or legacy", f)
}

func (s *Server) handleAPL(c *call) error {
	format, err := queryFormat(c)
	if err != nil {
		return err
	}
	var b aplRequest
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if err := required("apl", b.APL); err != nil {
		return err
	}
	if b.DefaultLimit < 0 || b.DefaultLimit > maxQueryRows {
		// The API documents 1 to 1000000; 0 (or none) leaves it unset.
		return badRequest("defaultLimit must be between 1 and %d, got %d", maxQueryRows, b.DefaultLimit)
	}
	if cur := c.QueryArgs().Peek("cursor"); len(cur) > 0 && b.Cursor == "" {
		b.Cursor = string(cur) // axiom-js sends the cursor as a parameter
	}
	req, err := s.queryRequest(c, &b)
	if err != nil {
		return err
	}
	res, err := s.runQuery(c, req)
	if err != nil {
		return err
	}
	if format == "tabular" {
		return writeJSON(c.RequestCtx, http.StatusOK, db.Tabular(res))
	}
	return writeJSON(c.RequestCtx, http.StatusOK, db.Legacy(res))
}

// maxQueryRows is the server's maximum of rows in an event result, the
// upper bound Axiom's API documents for defaultLimit: a query or request
// asking for more gets this many, marked partial with a message saying so.
const maxQueryRows = 1_000_000

// queryRequest builds the engine request: the time range, the caller's
// dataset permission, the org's datasets and its virtual fields.
func (s *Server) queryRequest(c *call, b *aplRequest) (*db.Request, error) {
	now := time.Now()
	req := &db.Request{APL: b.APL, Variables: b.Variables, Now: now, Cursor: b.Cursor,
		IncludeCursor: b.IncludeCursor, DefaultLimit: b.DefaultLimit, MaxRows: maxQueryRows}
	var err error
	if b.StartTime != "" {
		if req.Start, err = parseTime(b.StartTime, now); err != nil {
			return nil, badRequest("startTime: %v", err)
		}
	}
	if b.EndTime != "" {
		if req.End, err = parseTime(b.EndTime, now); err != nil {
			return nil, badRequest("endTime: %v", err)
		}
	}
	if !req.Start.IsZero() && !req.End.IsZero() && req.End.Before(req.Start) {
		return nil, badRequest("endTime must not be before startTime")
	}
	if nc := c.QueryArgs().Peek("nocache"); len(nc) > 0 && !strings.EqualFold(string(nc), "false") {
		req.DisableCache = true
	}
	p := c.p
	req.Allowed = func(ds string) bool { return p.canDataset(ds, capQuery, actRead) }
	// The query sees the caller's org only: union *, wildcards, search,
	// join and lookup all resolve names through this catalog.
	req.Catalog = c.datasets()
	if s.external != nil {
		req.ExternalData = s.external.fetch
	}
	s.distribute(req, p.org)
	vfs, err := s.virtualFields(p.org)
	if err != nil {
		return nil, err
	}
	if len(vfs) > 0 {
		req.VirtualFields = make(map[string][]db.VirtualField, len(vfs))
		for ds, list := range vfs {
			for _, v := range list {
				req.VirtualFields[ds] = append(req.VirtualFields[ds], db.VirtualField{Name: v.Name, Expression: v.Expression})
			}
		}
	}
	return req, nil
}

// runQuery applies the org's query limit, runs req and maps engine errors
// onto API errors.
func (s *Server) runQuery(c *call, req *db.Request) (*db.Output, error) {
	if err := s.checkLimit(c.p.org, limitQuery); err != nil {
		return nil, err
	}
	ctx, cancel := s.queryContext()
	defer cancel()
	ctx, stopWatch := watchClient(ctx, c.Conn())
	defer stopWatch()
	leave, err := s.gate.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer leave()
	ctx, release, err := s.admitQuery(ctx, req.APL)
	if err != nil {
		return nil, err
	}
	defer release()
	if req.MemoryBudget == 0 {
		req.MemoryBudget = s.cfg.QueryMemory
	}
	start := time.Now()
	res, err := s.queryDB(ctx, req) // skips a stored virtual field that cannot plan (vfields.go)
	if errors.Is(err, db.ErrNeedsIngest) || s.cfg.Ingest != "" && dependsOnUnflushed(err) {
		if res, err = s.answerFromIngest(ctx, c, req); errors.Is(err, errAnswered) {
			return nil, err
		}
	}
	m := s.metrics
	m.queries.Add(1)
	m.queryLatency.observe(time.Since(start))
	if err != nil {
		m.queryErrors.Add(1)
		var ce *db.CorruptionError
		if errors.As(err, &ce) {
			fmt.Fprintf(s.cfg.Log, "aplite: query hit damaged data: %v\n", err)
		}
		if me := memoryError(ctx, err); me != nil {
			return nil, me // refused its growth, or shed (governor.go)
		}
		if context.Cause(ctx) == errClientGone {
			m.queriesAbandoned.Add(1)
			return nil, errorf(499, "query cancelled: %v", errClientGone) // nobody reads it
		}
		if te := s.queryTimeoutError(err); te != nil {
			return nil, te
		}
		return nil, queryAPIError(err)
	}
	m.queryRowsRead.Add(res.RowsExamined())
	if req.End.IsZero() {
		// Axiom applies the request time as the end and says so; events
		// stamped in the future are rare enough that the range stays open.
		res = res.WithMessage(db.Message{Priority: "warn", Count: 1, Code: "apl_implicitendtimeofnowapplied_1",
			Msg: "line: 1, col: 1: implicit end time of 'now' applied"})
	}
	return res, nil
}

// dependsOnUnflushed reports whether a query error may come from this
// node's catalog lacking what only the ingest node has flushed nowhere
// yet: a dataset created there a moment ago (not found here) or a field
// only its buffered events have (a semantic error). A syntax error does
// not depend on the data, so it is answered here.
func dependsOnUnflushed(err error) bool {
	var qe *db.QueryError
	return errors.Is(err, db.ErrNotFound) || errors.As(err, &qe) && qe.Kind == "semantic"
}

// answerFromIngest handles a query this node cannot answer with the ingest
// node's unflushed events: the ingest node answers it (errAnswered: the
// response is written), or, when it cannot be reached, this node answers
// from what is flushed and says what is missing.
func (s *Server) answerFromIngest(ctx context.Context, c *call, req *db.Request) (*db.Output, error) {
	// The ingest node gets most of what the query has left, and this node
	// keeps the rest to answer without it.
	limit := s.cfg.QueryTimeout
	if dl, ok := ctx.Deadline(); ok {
		limit = time.Until(dl) * 3 / 4
	}
	ferr := s.forwardToIngest(c, limit)
	if errors.Is(ferr, errAnswered) {
		return nil, ferr
	}
	s.cluster.partial.Add(1)
	fmt.Fprintf(s.cfg.Log, "aplite: the query is answered without the ingest node's unflushed events: %v\n", ferr)
	alone := *req
	if req.Distribute != nil {
		d := *req.Distribute
		d.Ingest = ""
		alone.Distribute = &d
	}
	res, err := s.db.Query(ctx, &alone)
	if err != nil {
		return nil, err
	}
	return res.WithMessage(db.UnreachableIngest(s.cfg.Ingest, ferr)), nil
}

// queryAPIError maps engine errors onto the statuses the API documents.
func queryAPIError(err error) error {
	var qe *db.QueryError
	var fe *db.ForbiddenError
	switch {
	case errors.Is(err, db.ErrNotFound):
		return notFound("%s", err.Error())
	case errors.As(err, &qe):
		kind := qe.Kind
		if kind == "" {
			kind = "semantic"
		}
		return &apiError{Status: http.StatusBadRequest, Message: qe.Error(), Detail: map[string]any{
			"errorType": kind, "compileErrorCode": "", "line": qe.Line, "column": qe.Col, "message": qe.Msg}}
	case errors.As(err, &fe):
		return forbidden("%s", fe.Error())
	case errors.Is(err, db.ErrMemoryExceeded):
		return errorf(432, "%s", err.Error())
	}
	var ce *db.CorruptionError
	if errors.As(err, &ce) {
		// The full path goes to the log (runQuery); the answer names only
		// the file, so it never reveals the server's directories.
		return errorf(http.StatusInternalServerError, "stored data is damaged: %s at offset %d: %s (run `aplite check` on the data directory)",
			filepath.Base(ce.File), ce.Offset, ce.Reason)
	}
	return err
}
