package server

import (
	"errors"
	"net/http"
	"reflect"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// tokenRequest is the body of POST /v2/tokens (and of a regenerate's
// newToken).
type tokenRequest struct {
	Name                string                      `json:"name"`
	Description         string                      `json:"description"`
	ExpiresAt           time.Time                   `json:"expiresAt"`
	DatasetCapabilities map[string]meta.DatasetCaps `json:"datasetCapabilities"`
	OrgCapabilities     meta.OrgCaps                `json:"orgCapabilities"`
}

// tokenWithSecret is a created or regenerated token: the only response
// that ever carries the secret.
type tokenWithSecret struct {
	meta.APIToken
	Token string `json:"token"`
}

// validActions checks that every action list holds only known actions.
func validActions(where string, v any) error {
	rv := reflect.ValueOf(v)
	for i := 0; i < rv.NumField(); i++ {
		list, ok := rv.Field(i).Interface().([]string)
		if !ok {
			continue
		}
		for _, a := range list {
			switch a {
			case actCreate, actRead, actUpdate, actDelete:
			default:
				return badRequest("%s.%s: unknown action %q (use create, read, update or delete)",
					where, rv.Type().Field(i).Tag.Get("json"), a)
			}
		}
	}
	return nil
}

func (r *tokenRequest) validate(now time.Time) error {
	if err := firstErr(required("name", r.Name), maxLen("name", r.Name, 256),
		maxLen("description", r.Description, 1024)); err != nil {
		return err
	}
	if !r.ExpiresAt.IsZero() && !r.ExpiresAt.After(now) {
		return badRequest("expiresAt must be in the future")
	}
	for ds, caps := range r.DatasetCapabilities {
		if ds == "" {
			return badRequest("datasetCapabilities: dataset names must not be empty")
		}
		if err := validActions("datasetCapabilities."+ds, caps); err != nil {
			return err
		}
	}
	return validActions("orgCapabilities", r.OrgCapabilities)
}

func (r *tokenRequest) record(org string) *meta.TokenRecord {
	caps := r.DatasetCapabilities
	if caps == nil {
		caps = map[string]meta.DatasetCaps{}
	}
	exp := r.ExpiresAt.UTC()
	return &meta.TokenRecord{
		APIToken: meta.APIToken{ID: meta.NewID(), Name: r.Name, Description: r.Description,
			ExpiresAt: exp, DatasetCapabilities: caps, OrgCapabilities: r.OrgCapabilities},
		Kind: meta.TokenAPI, OrgID: org, Issued: time.Now().UTC(),
	}
}

func (s *Server) handleListTokens(c *call) error {
	if err := c.p.requireOrg(capAPITokens, actRead, "API tokens"); err != nil {
		return err
	}
	all, err := meta.List[meta.TokenRecord](s.meta, meta.KindToken, "")
	if err != nil {
		return err
	}
	out := []meta.APIToken{}
	for _, t := range all {
		if t.Kind == meta.TokenAPI && t.OrgID == c.p.org {
			out = append(out, t.APIToken)
		}
	}
	return writeJSON(c.RequestCtx, http.StatusOK, out)
}

// loadToken reads the API token named by the path in the caller's org.
func (s *Server) loadToken(c *call) (*meta.TokenRecord, error) {
	id := c.param("id")
	var t meta.TokenRecord
	err := s.meta.Get(meta.KindToken, "", id, &t)
	if errors.Is(err, meta.ErrNotFound) || err == nil && (t.Kind != meta.TokenAPI || t.OrgID != c.p.org) {
		return nil, notFound("API token %q not found", id)
	}
	return &t, err
}

func (s *Server) handleGetToken(c *call) error {
	if err := c.p.requireOrg(capAPITokens, actRead, "API tokens"); err != nil {
		return err
	}
	t, err := s.loadToken(c)
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, t.APIToken)
}

func (s *Server) handleCreateToken(c *call) error {
	if err := c.p.requireOrg(capAPITokens, actCreate, "API tokens"); err != nil {
		return err
	}
	var r tokenRequest
	if err := s.readJSON(c.RequestCtx, &r, false); err != nil {
		return err
	}
	if err := r.validate(time.Now()); err != nil {
		return err
	}
	if err := c.p.ceiling(r.DatasetCapabilities, r.OrgCapabilities); err != nil {
		return err
	}
	rec := r.record(c.p.org)
	secret := meta.NewSecret(meta.PrefixAPI)
	if err := s.meta.Update(func(tx *meta.Tx) error { return tx.PutToken(rec, secret) }); err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, tokenWithSecret{rec.APIToken, secret})
}

func (s *Server) handleDeleteToken(c *call) error {
	if err := c.p.requireOrg(capAPITokens, actDelete, "API tokens"); err != nil {
		return err
	}
	t, err := s.loadToken(c)
	if err != nil {
		return err
	}
	if err := s.meta.Update(func(tx *meta.Tx) error { return tx.DeleteToken(t.ID) }); err != nil {
		return err
	}
	s.tokens.clear()
	return noContent(c.RequestCtx)
}

// regenerateRequest is the body of POST /v2/tokens/{id}/regenerate.
type regenerateRequest struct {
	ExistingTokenExpiresAt time.Time     `json:"existingTokenExpiresAt"`
	NewToken               *tokenRequest `json:"newToken"`
	NewTokenExpiresAt      time.Time     `json:"newTokenExpiresAt"`
}

// handleRegenerateToken issues a new token (a copy of the old one, or the
// given newToken) and lets the old one expire at existingTokenExpiresAt.
func (s *Server) handleRegenerateToken(c *call) error {
	if err := c.p.requireOrg(capAPITokens, actUpdate, "API tokens"); err != nil {
		return err
	}
	old, err := s.loadToken(c)
	if err != nil {
		return err
	}
	var r regenerateRequest
	if err := s.readJSON(c.RequestCtx, &r, false); err != nil {
		return err
	}
	if r.ExistingTokenExpiresAt.IsZero() {
		return badRequest("existingTokenExpiresAt is required")
	}
	req := tokenRequest{Name: old.Name, Description: old.Description, ExpiresAt: old.ExpiresAt,
		DatasetCapabilities: old.DatasetCapabilities, OrgCapabilities: old.OrgCapabilities}
	if r.NewToken != nil {
		req = *r.NewToken
	}
	if !r.NewTokenExpiresAt.IsZero() {
		req.ExpiresAt = r.NewTokenExpiresAt
	}
	if err := req.validate(time.Now()); err != nil {
		return err
	}
	if err := c.p.ceiling(req.DatasetCapabilities, req.OrgCapabilities); err != nil {
		return err
	}
	rec := req.record(c.p.org)
	secret := meta.NewSecret(meta.PrefixAPI)
	err = s.meta.Update(func(tx *meta.Tx) error {
		var cur meta.TokenRecord
		if err := tx.Get(meta.KindToken, "", old.ID, &cur); err != nil {
			return err
		}
		cur.ExpiresAt = r.ExistingTokenExpiresAt.UTC()
		if err := tx.Put(meta.KindToken, "", cur.ID, &cur); err != nil {
			return err
		}
		return tx.PutToken(rec, secret)
	})
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("API token %q not found", old.ID)
	}
	if err != nil {
		return err
	}
	s.tokens.clear()
	return writeJSON(c.RequestCtx, http.StatusOK, tokenWithSecret{rec.APIToken, secret})
}
