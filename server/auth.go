package server

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/aplite/aplite/server/meta"
)

// principal is who a request acts as: a personal token acting for its user
// in one org, or an API token limited by its capabilities.
type principal struct {
	tok    *meta.TokenRecord
	org    string // the org the request acts in ("" when not needed)
	userID string
	// readOnly: a personal token whose user has the read-only role in
	// the org; every other role acts with every capability.
	readOnly bool
}

func (p *principal) personal() bool { return p.tok.Kind == meta.TokenPersonal }

// orgCap returns the actions a token has on an org-wide resource.
type orgCap func(c *meta.OrgCaps) []string

// dsCap returns the actions a token has on a dataset.
type dsCap func(c *meta.DatasetCaps) []string

var (
	capAnnotations orgCap = func(c *meta.OrgCaps) []string { return c.Annotations }
	capAPITokens   orgCap = func(c *meta.OrgCaps) []string { return c.APITokens }
	capDashboards  orgCap = func(c *meta.OrgCaps) []string { return c.Dashboards }
	capDatasets    orgCap = func(c *meta.OrgCaps) []string { return c.Datasets }
	capMonitors    orgCap = func(c *meta.OrgCaps) []string { return c.Monitors }
	capNotifiers   orgCap = func(c *meta.OrgCaps) []string { return c.Notifiers }
	capRBAC        orgCap = func(c *meta.OrgCaps) []string { return c.RBAC }
	capUsers       orgCap = func(c *meta.OrgCaps) []string { return c.Users }
	capBilling     orgCap = func(c *meta.OrgCaps) []string { return c.Billing }

	capIngest  dsCap = func(c *meta.DatasetCaps) []string { return c.Ingest }
	capQuery   dsCap = func(c *meta.DatasetCaps) []string { return c.Query }
	capStarred dsCap = func(c *meta.DatasetCaps) []string { return c.StarredQueries }
	capVFields dsCap = func(c *meta.DatasetCaps) []string { return c.VirtualFields }
	capTrim    dsCap = func(c *meta.DatasetCaps) []string { return c.Trim }
)

// Actions, as API tokens spell them.
const (
	actCreate = "create"
	actRead   = "read"
	actUpdate = "update"
	actDelete = "delete"
)

// readOnlyRole reports whether a member with role may only read. Only
// owner, admin and user may write: read-only, an RBAC role id (whose
// permissions aplite does not model) or a misspelt role grants the least,
// never full control.
func readOnlyRole(role string) bool {
	switch strings.ToLower(strings.TrimSpace(role)) {
	case "owner", "admin", "user":
		return false
	}
	return true
}

// canOrg reports whether p may take action on an org-wide resource.
func (p *principal) canOrg(c orgCap, action string) bool {
	if p.personal() {
		return !p.readOnly || action == actRead
	}
	return slices.Contains(c(&p.tok.OrgCapabilities), action)
}

// canDataset reports whether p may take action on dataset ds, through the
// dataset's own entry or the "*" wildcard.
func (p *principal) canDataset(ds string, c dsCap, action string) bool {
	if p.personal() {
		return !p.readOnly || action == actRead
	}
	caps := p.tok.DatasetCapabilities
	if dc, ok := caps[ds]; ok && slices.Contains(c(&dc), action) {
		return true
	}
	if dc, ok := caps["*"]; ok && slices.Contains(c(&dc), action) {
		return true
	}
	return false
}

// requireOrg answers 403 unless p may take action on the resource.
func (p *principal) requireOrg(c orgCap, action, what string) error {
	if !p.canOrg(c, action) {
		return forbidden("token is not allowed to %s %s", action, what)
	}
	return nil
}

// requireDataset answers 403 unless p may take action on ds.
func (p *principal) requireDataset(ds string, c dsCap, action, what string) error {
	if !p.canDataset(ds, c, action) {
		return forbidden("token is not allowed to %s dataset %q", what, ds)
	}
	return nil
}

// tokenCache keeps recently seen tokens by secret hash, so a request does
// not open a bbolt transaction to authenticate. Any token change clears it.
type tokenCache struct {
	mu sync.RWMutex
	m  map[string]*meta.TokenRecord
}

func (c *tokenCache) get(h string) *meta.TokenRecord {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.m[h]
}

func (c *tokenCache) put(h string, rec *meta.TokenRecord) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 10000 {
		c.m = make(map[string]*meta.TokenRecord)
	}
	c.m[h] = rec
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

var errNoAuth = forbidden("missing or malformed Authorization header: use \"Authorization: Bearer <token>\"")

// authenticate resolves the bearer token into a principal. needOrg says
// whether a personal token must name its org with the org header.
func (s *Server) authenticate(ctx *fasthttp.RequestCtx, needOrg bool) (*principal, error) {
	h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)
	const bearer = "bearer "
	if len(h) <= len(bearer) || !bytes.EqualFold(h[:len(bearer)], []byte(bearer)) {
		return nil, errNoAuth
	}
	secret := string(bytes.TrimSpace(h[len(bearer):]))
	if !meta.ValidSecret(secret) {
		return nil, forbidden("malformed token: tokens start with xaat- or xapt-")
	}
	hash := meta.HashSecret(secret)
	rec := s.tokens.get(hash)
	if rec == nil {
		var err error
		rec, err = s.meta.TokenBySecret(secret)
		if errors.Is(err, meta.ErrNotFound) {
			return nil, forbidden("invalid token")
		}
		if err != nil {
			return nil, err
		}
		s.tokens.put(hash, rec)
	}
	if rec.Expired(time.Now()) {
		return nil, forbidden("token expired")
	}
	p := &principal{tok: rec, userID: rec.UserID}
	org := orgHeader(ctx)
	switch {
	case rec.Kind == meta.TokenAPI:
		// An API token belongs to one org; naming another is a mistake.
		if org != "" && org != rec.OrgID {
			return nil, forbidden("token does not belong to organization %q", org)
		}
		p.org = rec.OrgID
	case org != "":
		// A personal token acts for its user, in the orgs the user is a
		// member of; any other org answers as one that does not exist.
		m, member := s.meta.Member(org, rec.UserID)
		if !member || !s.orgExists(org) {
			return nil, forbidden("organization %q not found or not accessible", org)
		}
		p.org, p.readOnly = org, readOnlyRole(m.Role)
	case needOrg:
		return nil, forbidden("missing X-Axiom-Org-Id header: personal access tokens must name the organization")
	default:
		p.org = rec.OrgID
		m, _ := s.meta.Member(p.org, rec.UserID)
		p.readOnly = readOnlyRole(m.Role)
	}
	return p, nil
}

// isMember reports whether user belongs to org.
func (s *Server) isMember(org, userID string) bool {
	_, ok := s.meta.Member(org, userID)
	return ok
}

// orgHeader returns the org id of X-Axiom-Org-Id, or of the neutral
// x-service-org-id spelling of the specification.
func orgHeader(ctx *fasthttp.RequestCtx) string {
	if v := ctx.Request.Header.Peek("X-Axiom-Org-Id"); len(v) > 0 {
		return string(bytes.TrimSpace(v))
	}
	return string(bytes.TrimSpace(ctx.Request.Header.Peek("X-Service-Org-Id")))
}
