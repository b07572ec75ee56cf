package server

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// currentUser returns the user a personal token acts for; API tokens have
// no user.
func (c *call) currentUser() (*meta.User, error) {
	if !c.p.personal() {
		return nil, forbidden("API tokens do not act for a user: use a personal access token")
	}
	var u meta.User
	if err := c.s.meta.Get(meta.KindUser, "", c.p.userID, &u); err != nil {
		if errors.Is(err, meta.ErrNotFound) {
			return nil, forbidden("the token's user no longer exists")
		}
		return nil, err
	}
	if m, ok := c.s.meta.Member(c.p.org, u.ID); ok {
		u.Role = meta.Role{ID: m.Role, Name: m.Role}
	}
	return &u, nil
}

func (s *Server) handleCurrentUser(c *call) error {
	u, err := c.currentUser()
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, u)
}

// userV1 is the /v1/user shape (axiom-rs): emails instead of email.
type userV1 struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Emails []string `json:"emails"`
}

func (s *Server) handleCurrentUserV1(c *call) error {
	u, err := c.currentUser()
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, userV1{ID: u.ID, Name: u.Name, Emails: []string{u.Email}})
}

// Users are global (one per email) and belong to orgs with a role in
// each (meta.Membership): the /v2/users routes see the members of the
// caller's org only, with their role there.

// withRole returns u carrying its role in an org.
func withRole(u meta.User, m meta.Membership) meta.User {
	u.Role = meta.Role{ID: m.Role, Name: m.Role}
	return u
}

func (s *Server) handleListUsers(c *call) error {
	if err := c.p.requireOrg(capUsers, actRead, "users"); err != nil {
		return err
	}
	out := []meta.User{}
	err := s.meta.View(func(tx *meta.Tx) error {
		return tx.EachMember(c.p.org, func(_, id string, m meta.Membership) error {
			var u meta.User
			if err := tx.Get(meta.KindUser, "", id, &u); err != nil {
				if errors.Is(err, meta.ErrNotFound) {
					return nil
				}
				return err
			}
			out = append(out, withRole(u, m))
			return nil
		})
	})
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, out)
}

// loadMember reads the user id in the caller's org: 404 for users of
// other orgs only.
func loadMember(tx *meta.Tx, org, id string) (meta.User, error) {
	var u meta.User
	m, ok := tx.Member(org, id)
	if !ok {
		return u, notFound("user %q not found", id)
	}
	err := tx.Get(meta.KindUser, "", id, &u)
	if errors.Is(err, meta.ErrNotFound) {
		return u, notFound("user %q not found", id)
	}
	return withRole(u, m), err
}

func (s *Server) handleGetUser(c *call) error {
	if err := c.p.requireOrg(capUsers, actRead, "users"); err != nil {
		return err
	}
	var u meta.User
	err := s.meta.View(func(tx *meta.Tx) (err error) {
		u, err = loadMember(tx, c.p.org, c.param("id"))
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, u)
}

type userBody struct {
	Name  *string `json:"name"`
	Email *string `json:"email"`
	Role  *string `json:"role"`
}

func validRole(role string) error {
	if err := firstErr(required("role", role), maxLen("role", role, 128)); err != nil {
		return err
	}
	return nil
}

// handleCreateUser adds a user to the caller's org: a new user, or one
// that already belongs to other orgs (the email names the person).
func (s *Server) handleCreateUser(c *call) error {
	if err := c.p.requireOrg(capUsers, actCreate, "users"); err != nil {
		return err
	}
	var b userBody
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if b.Name == nil || b.Email == nil || b.Role == nil {
		return badRequest("name, email and role are required")
	}
	if err := firstErr(required("name", *b.Name), maxLen("name", *b.Name, 256), required("email", *b.Email),
		validRole(*b.Role)); err != nil {
		return err
	}
	if !strings.Contains(*b.Email, "@") {
		return badRequest("email %q is not an email address", *b.Email)
	}
	var u meta.User
	err := s.meta.Update(func(tx *meta.Tx) error {
		old, found, err := tx.UserByEmail(*b.Email)
		if err != nil {
			return err
		}
		if _, member := tx.Member(c.p.org, old.ID); found && member {
			return conflict("a user with email %q already exists", *b.Email)
		}
		u = old
		if !found {
			u = meta.User{ID: meta.NewID(), Name: *b.Name, Email: *b.Email, Role: meta.Role{ID: *b.Role, Name: *b.Role}}
			if err := tx.Insert(meta.KindUser, "", u.ID, u); err != nil {
				return err
			}
		}
		u.Role = meta.Role{ID: *b.Role, Name: *b.Role}
		return tx.PutMember(c.p.org, u.ID, *b.Role, time.Now())
	})
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, u)
}

// updateUser applies change to the member of the caller's org named by
// the path: the user record (name) and its membership (role).
func (s *Server) updateUser(c *call, change func(u *meta.User)) error {
	if err := c.p.requireOrg(capUsers, actUpdate, "users"); err != nil {
		return err
	}
	var u meta.User
	id := c.param("id")
	err := s.meta.Update(func(tx *meta.Tx) error {
		var err error
		if u, err = loadMember(tx, c.p.org, id); err != nil {
			return err
		}
		change(&u)
		if err := tx.PutMember(c.p.org, id, u.Role.Name, time.Now()); err != nil {
			return err
		}
		var rec meta.User
		if err := tx.Get(meta.KindUser, "", id, &rec); err != nil {
			return err
		}
		if rec.Name == u.Name {
			return nil
		}
		// A name is the user's in every org: an admin of one org renames
		// only a user who belongs to no other.
		if orgs, err := tx.UserOrgs(id); err != nil {
			return err
		} else if len(orgs) > 1 && c.p.userID != id {
			return forbidden("user %q also belongs to other organizations: only they can change their name", id)
		}
		rec.Name = u.Name
		return tx.Put(meta.KindUser, "", id, rec)
	})
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, u)
}

func (s *Server) handleUpdateUser(c *call) error {
	var b userBody
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if b.Name == nil {
		return badRequest("name is required")
	}
	if err := firstErr(required("name", *b.Name), maxLen("name", *b.Name, 256)); err != nil {
		return err
	}
	return s.updateUser(c, func(u *meta.User) { u.Name = *b.Name })
}

func (s *Server) handleUpdateUserRole(c *call) error {
	var b userBody
	if err := s.readJSON(c.RequestCtx, &b, false); err != nil {
		return err
	}
	if b.Role == nil {
		return badRequest("role is required")
	}
	if err := validRole(*b.Role); err != nil {
		return err
	}
	return s.updateUser(c, func(u *meta.User) { u.Role = meta.Role{ID: *b.Role, Name: *b.Role} })
}

// handleDeleteUser takes a user out of the caller's org; a user left in
// no org is deleted with its personal tokens (meta.RemoveMember).
func (s *Server) handleDeleteUser(c *call) error {
	if err := c.p.requireOrg(capUsers, actDelete, "users"); err != nil {
		return err
	}
	id := c.param("id")
	err := s.meta.Update(func(tx *meta.Tx) error { return tx.RemoveMember(c.p.org, id) })
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("user %q not found", id)
	}
	if errors.Is(err, meta.ErrOwnerHome) {
		return conflict("user %q owns the server and cannot leave this organization, where its admin token acts", id)
	}
	if err != nil {
		return err
	}
	s.tokens.clear()
	return noContent(c.RequestCtx)
}
