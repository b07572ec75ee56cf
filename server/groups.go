package server

import (
	"strings"

	"github.com/aplite/aplite/server/meta"
)

type groupBody struct {
	Name        *string   `json:"name"`
	Description *string   `json:"description"`
	Members     *[]string `json:"members"`
	Roles       *[]string `json:"roles"`
}

func groupResource(s *Server) *resource[meta.Group] {
	apply := func(c *call, g *meta.Group) error {
		var b groupBody
		if err := c.s.readJSON(c.RequestCtx, &b, false); err != nil {
			return err
		}
		if b.Name == nil || strings.TrimSpace(*b.Name) == "" {
			return badRequest("name is required")
		}
		if err := maxLen("name", *b.Name, 256); err != nil {
			return err
		}
		g.Name = *b.Name
		if b.Description != nil {
			g.Description = *b.Description
		}
		if b.Members != nil {
			g.Members = append([]string{}, *b.Members...)
		}
		if b.Roles != nil {
			g.Roles = append([]string{}, *b.Roles...)
		}
		return nil
	}
	return &resource[meta.Group]{
		kind:    meta.KindGroup,
		what:    "group",
		allowed: orgPerm[meta.Group](capRBAC, "RBAC groups"),
		newID:   meta.NewID,
		id:      func(g *meta.Group) string { return g.ID },
		setID:   func(g *meta.Group, id string) { g.ID = id },
		create: func(c *call) (*meta.Group, error) {
			g := &meta.Group{Members: []string{}, Roles: []string{}}
			return g, apply(c, g)
		},
		update: func(c *call, old meta.Group) (*meta.Group, error) {
			return &old, apply(c, &old)
		},
		unique: func(tx *meta.Tx, org string, g *meta.Group) error {
			all, err := meta.ListTx[meta.Group](tx, meta.KindGroup, org)
			if err != nil {
				return err
			}
			for _, o := range all {
				if o.ID != g.ID && strings.EqualFold(o.Name, g.Name) {
					return conflict("a group named %q already exists", g.Name)
				}
			}
			return nil
		},
	}
}
