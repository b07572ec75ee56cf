package server

import (
	"errors"
	"net/http"
	"strings"

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

func (s *Server) handleListUsers(c *call) error {
	if err := c.p.requireOrg(capUsers, actRead, "users"); err != nil {
		return err
	}
	users, err := meta.List[meta.User](s.meta, meta.KindUser, "")
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, users)
}

func (s *Server) loadUser(c *call) (*meta.User, error) {
	var u meta.User
	id := c.param("id")
	err := s.meta.Get(meta.KindUser, "", id, &u)
	if errors.Is(err, meta.ErrNotFound) {
		return nil, notFound("user %q not found", id)
	}
	return &u, err
}

func (s *Server) handleGetUser(c *call) error {
	if err := c.p.requireOrg(capUsers, actRead, "users"); err != nil {
		return err
	}
	u, err := s.loadUser(c)
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
	u := meta.User{ID: meta.NewID(), Name: *b.Name, Email: *b.Email, Role: meta.Role{ID: *b.Role, Name: *b.Role}}
	err := s.meta.Update(func(tx *meta.Tx) error {
		all, err := meta.ListTx[meta.User](tx, meta.KindUser, "")
		if err != nil {
			return err
		}
		for _, o := range all {
			if strings.EqualFold(o.Email, u.Email) {
				return conflict("a user with email %q already exists", u.Email)
			}
		}
		return tx.Insert(meta.KindUser, "", u.ID, u)
	})
	if err != nil {
		return err
	}
	return writeJSON(c.RequestCtx, http.StatusOK, u)
}

// updateUser applies change to the user named by the path.
func (s *Server) updateUser(c *call, change func(u *meta.User)) error {
	if err := c.p.requireOrg(capUsers, actUpdate, "users"); err != nil {
		return err
	}
	var u meta.User
	id := c.param("id")
	err := s.meta.Update(func(tx *meta.Tx) error {
		if err := tx.Get(meta.KindUser, "", id, &u); err != nil {
			return err
		}
		change(&u)
		return tx.Put(meta.KindUser, "", id, u)
	})
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("user %q not found", id)
	}
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

func (s *Server) handleDeleteUser(c *call) error {
	if err := c.p.requireOrg(capUsers, actDelete, "users"); err != nil {
		return err
	}
	id := c.param("id")
	var owner string
	if err := s.meta.Get(meta.KindSettings, "", "owner", &owner); err == nil && owner == id {
		return conflict("user %q owns the organization and cannot be deleted", id)
	}
	err := s.meta.Delete(meta.KindUser, "", id)
	if errors.Is(err, meta.ErrNotFound) {
		return notFound("user %q not found", id)
	}
	if err != nil {
		return err
	}
	return noContent(c.RequestCtx)
}
