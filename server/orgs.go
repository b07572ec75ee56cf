package server

import (
	"errors"
	"net/http"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// visibleOrg reports whether the caller may see org id: API tokens see
// only their own org, personal tokens the orgs of their user.
func (c *call) visibleOrg(id string) bool {
	if c.p.personal() {
		return c.s.isMember(id, c.p.userID)
	}
	return c.p.tok.OrgID == id
}

// asSeen returns o with the caller's role in it (a personal token's user
// may be an owner in one org and a plain user in another).
func (c *call) asSeen(o meta.Org) meta.Org {
	if m, ok := c.s.meta.Member(o.ID, c.p.userID); ok && c.p.personal() {
		o.Role = m.Role
	}
	return o
}

func (s *Server) handleListOrgs(c *call) error {
	all, err := meta.List[meta.Org](s.meta, meta.KindOrg, "")
	if err != nil {
		return err
	}
	out := all[:0]
	for _, o := range all {
		if c.visibleOrg(o.ID) {
			out = append(out, c.asSeen(o))
		}
	}
	return writeJSON(c.RequestCtx, http.StatusOK, out)
}

func (s *Server) handleGetOrg(c *call) error {
	id := c.param("id")
	var o meta.Org
	if err := s.meta.Get(meta.KindOrg, "", id, &o); err != nil || !c.visibleOrg(id) {
		if err == nil || errors.Is(err, meta.ErrNotFound) {
			return notFound("organization %q not found", id)
		}
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, c.asSeen(o))
}

// mayUpdateOrg checks the caller may change org id. The org header may
// name another org than the one updated: a personal token's role in the
// updated org is what counts.
func (c *call) mayUpdateOrg(id string) error {
	if !c.p.personal() {
		return c.p.requireOrg(capBilling, actUpdate, "the organization")
	}
	if m, _ := c.s.meta.Member(id, c.p.userID); readOnlyRole(m.Role) {
		return forbidden("token is not allowed to update the organization")
	}
	return nil
}

func (s *Server) handleUpdateOrg(c *call) error {
	id := c.param("id")
	if !c.visibleOrg(id) {
		return notFound("organization %q not found", id)
	}
	if err := c.mayUpdateOrg(id); err != nil {
		return err
	}
	var b struct {
		Name *string `json:"name"`
	}
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if b.Name == nil {
		return badRequest("name is required")
	}
	if err := firstErr(required("name", *b.Name), maxLen("name", *b.Name, 256)); err != nil {
		return err
	}
	var o meta.Org
	err := s.meta.Update(func(tx *meta.Tx) error {
		if err := tx.Get(meta.KindOrg, "", id, &o); err != nil {
			return err
		}
		o.Name = *b.Name
		o.MetaModified = time.Now().UTC().Truncate(time.Second)
		return tx.Put(meta.KindOrg, "", id, o)
	})
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("organization %q not found", id)
	}
	if err != nil {
		return err
	}
	s.forgetOrg(id)
	return writeJSON(c.RequestCtx, http.StatusOK, c.asSeen(o))
}
