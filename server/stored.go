package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aplite/aplite/db"
)

// Stored queries (issue 25): a monitor's aplQuery, a virtual field's
// expression, a starred query's APL and a dashboard chart's APL are
// parsed, planned and permission-checked when they are created or
// updated, with the rights of the caller who stores them, and refused
// then (400 with the position of the fault, 403 for a dataset the caller
// may not read) rather than failing, or taking the server down, at every
// later run. Planning reads no data (db.Validate).
//
// One error is let through: a field the dataset does not have yet
// ("unknown field"), because a monitor or a virtual field is commonly set
// up before the events that carry the field arrive. Planning stops at
// that field, so every dataset the query names, on every side of a join,
// union or lookup, is permission-checked from the query's text first.

// storedRequest is the request a stored query is checked with: the
// caller's org and its virtual fields (checkStoredAPL sets the rights).
func (s *Server) storedRequest(c *call, apl string) *db.Request {
	req := &db.Request{APL: apl, Now: time.Now(), Catalog: c.datasets()}
	if vfs, err := s.virtualFields(c.p.org); err == nil {
		req.VirtualFields = engineVFields(vfs)
	}
	if len(s.cfg.ExternalDataAllow) > 0 {
		allow := s.cfg.ExternalDataAllow
		req.ExternalData = func(url string) ([]byte, error) { // checked, never fetched
			for _, p := range allow {
				if strings.HasPrefix(url, p) {
					return nil, nil
				}
			}
			return nil, errors.New("not on the server's externaldata allow-list")
		}
	}
	return req
}

// checkStoredAPL checks apl, stored under field, with the caller's
// rights: nil, or the API error that refuses it. also names datasets the
// caller may name beyond those it may query (nil: none).
func (s *Server) checkStoredAPL(c *call, field, apl string, also func(ds string) bool) error {
	may := func(ds string) bool { return c.p.canDataset(ds, capQuery, actRead) || also != nil && also(ds) }
	if err := s.checkStoredReads(c, field, apl, may); err != nil {
		return err
	}
	req := s.storedRequest(c, apl)
	req.Allowed = may
	ctx, cancel := context.WithTimeout(s.life, s.cfg.QueryTimeout)
	defer cancel()
	return storedError(field, s.validateSkippingVFields(ctx, req))
}

// checkStoredReads refuses a query that names a dataset of the org the
// caller may not read, wherever in the query it is named. Names that are
// not datasets (a let-bound table) are left to planning; a wildcard only
// ever matches datasets the reader may read.
func (s *Server) checkStoredReads(c *call, field, apl string, may func(string) bool) error {
	var names []string
	for _, r := range db.DatasetRefs(apl) {
		if r.Pattern || may(r.Name) {
			continue
		}
		if names == nil {
			names = c.datasets().Names()
		}
		if slices.Contains(names, r.Name) {
			return &apiError{Status: http.StatusForbidden,
				Message: fmt.Sprintf("%s: %d:%d: token is not allowed to query dataset %q", field, r.Line, r.Col, r.Name),
				Detail:  map[string]any{"field": field, "line": r.Line, "column": r.Col, "dataset": r.Name}}
		}
	}
	return nil
}

// validateSkippingVFields plans req; when the org has a virtual field that
// does not plan (one stored before fields were checked), the check is
// made again without it, so the new query is judged on its own.
func (s *Server) validateSkippingVFields(ctx context.Context, req *db.Request) error {
	err := s.db.Validate(ctx, req)
	if err == nil || len(req.VirtualFields) == 0 {
		return err
	}
	if kept, skipped := s.goodVFields(ctx, req); len(skipped) > 0 {
		again := *req
		again.VirtualFields = kept
		return s.db.Validate(ctx, &again)
	}
	return err
}

// storedError turns a planning error of a query stored under field into
// the API error that refuses it; nil for no error and for a field the
// data does not have yet.
func storedError(field string, err error) error {
	if err == nil {
		return nil
	}
	var qe *db.QueryError
	var fe *db.ForbiddenError
	switch {
	case errors.As(err, &qe):
		if qe.Kind != "syntax" && strings.HasPrefix(qe.Msg, "unknown field") {
			return nil
		}
		kind := qe.Kind
		if kind == "" {
			kind = "semantic"
		}
		return &apiError{Status: http.StatusBadRequest, Message: fmt.Sprintf("%s: %d:%d: %s", field, qe.Line, qe.Col, qe.Msg),
			Detail: map[string]any{"field": field, "errorType": kind, "line": qe.Line, "column": qe.Col, "message": qe.Msg}}
	case errors.As(err, &fe):
		return forbidden("%s: token is not allowed to query dataset %q", field, fe.Dataset)
	}
	return badRequest("%s: %v", field, err)
}
