package meta

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The operations of `aplite admin`, which the API has no route for
// (creating orgs, adding a user to an org, issuing a first token). They
// run in the server process (through its admin socket) or on a stopped
// server's store, so both paths share this code.

// CreateOrg makes an org; ErrExists when the id is taken.
func (s *Store) CreateOrg(id, name string, now time.Time) (Org, error) {
	if err := ValidOrgID(id); err != nil {
		return Org{}, err
	}
	if name == "" {
		name = id
	}
	o := DefaultOrg(id, now)
	o.Name = name
	err := s.Update(func(tx *Tx) error { return tx.Insert(KindOrg, "", id, o) })
	if err != nil {
		return Org{}, fmt.Errorf("organization %q: %w", id, err)
	}
	return o, nil
}

// MemberRow is one user's membership, as `aplite admin user list` shows.
type MemberRow struct {
	User User   `json:"user"`
	Org  string `json:"org"`
	Role string `json:"role"`
}

// Members lists every membership of org ("" for every org), by org then
// email.
func (s *Store) Members(org string) ([]MemberRow, error) {
	var out []MemberRow
	err := s.View(func(tx *Tx) error {
		return tx.EachMember(org, func(o, userID string, m Membership) error {
			var u User
			if err := tx.Get(KindUser, "", userID, &u); err != nil {
				if errors.Is(err, ErrNotFound) {
					return nil // a membership outliving its user lists nobody
				}
				return err
			}
			out = append(out, MemberRow{User: u, Org: o, Role: m.Role})
			return nil
		})
	})
	slices.SortFunc(out, func(a, b MemberRow) int {
		if c := strings.Compare(a.Org, b.Org); c != 0 {
			return c
		}
		return strings.Compare(strings.ToLower(a.User.Email), strings.ToLower(b.User.Email))
	})
	return out, err
}

// AddUser makes the user with email a member of org with role (changing
// the role of a member). A user new to the server is created, with a
// personal token whose secret is returned; an existing user's tokens
// already act in every org the user belongs to, so none is issued.
func (s *Store) AddUser(email, name, org, role string, now time.Time) (User, string, error) {
	if !strings.Contains(email, "@") {
		return User{}, "", fmt.Errorf("%w: %q is not an email address", ErrInvalid, email)
	}
	if !slices.Contains(Roles, role) {
		return User{}, "", fmt.Errorf("%w: role %q: use one of %s", ErrInvalid, role, strings.Join(Roles, ", "))
	}
	var u User
	var secret string
	err := s.Update(func(tx *Tx) error {
		if !tx.Has(KindOrg, "", org) {
			return fmt.Errorf("organization %q: %w", org, ErrNotFound)
		}
		var found bool
		var err error
		if u, found, err = tx.UserByEmail(email); err != nil {
			return err
		}
		if !found {
			if name == "" {
				name = email[:strings.IndexByte(email, '@')]
			}
			u = User{ID: NewID(), Name: name, Email: email, Role: Role{ID: role, Name: role}}
			if err := tx.Put(KindUser, "", u.ID, u); err != nil {
				return err
			}
			secret = NewSecret(PrefixPersonal)
			if err := tx.PutToken(newPAT(u.ID, org, now), secret); err != nil {
				return err
			}
		}
		return tx.PutMember(org, u.ID, role, now)
	})
	return u, secret, err
}

func newPAT(userID, org string, now time.Time) *TokenRecord {
	return &TokenRecord{
		APIToken: APIToken{ID: NewID(), Name: "personal access token",
			DatasetCapabilities: map[string]DatasetCaps{}},
		Kind: TokenPersonal, UserID: userID, OrgID: org, Issued: now.UTC(),
	}
}

// RemoveMember takes user out of org. A user left in no org is deleted
// with its personal tokens, so nothing of it can act any more.
// The server's owner cannot leave an org their personal tokens act in
// (the admin token among them): ErrOwnerHome.
func (t *Tx) RemoveMember(org, userID string) error {
	toks, err := ListTx[TokenRecord](t, KindToken, "")
	if err != nil {
		return err
	}
	var owner string
	if t.Get(KindSettings, "", ownerKey, &owner) == nil && owner == userID {
		for _, tok := range toks {
			if tok.Kind == TokenPersonal && tok.UserID == userID && tok.OrgID == org {
				return fmt.Errorf("%w: %q", ErrOwnerHome, org)
			}
		}
	}
	if err := t.Delete(KindMember, org, userID); err != nil {
		return err
	}
	left, err := t.UserOrgs(userID)
	if err != nil || len(left) > 0 {
		return err
	}
	for _, tok := range toks {
		if tok.Kind == TokenPersonal && tok.UserID == userID {
			if err := t.DeleteToken(tok.ID); err != nil {
				return err
			}
		}
	}
	return t.Delete(KindUser, "", userID)
}

// IssuePAT creates a personal token for the user with email.
func (s *Store) IssuePAT(email string, now time.Time) (string, error) {
	secret := NewSecret(PrefixPersonal)
	err := s.Update(func(tx *Tx) error {
		u, found, err := tx.UserByEmail(email)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("user %q: %w", email, ErrNotFound)
		}
		orgs, err := tx.UserOrgs(u.ID)
		if err != nil {
			return err
		}
		org := ""
		for id := range orgs {
			if org == "" || id < org {
				org = id
			}
		}
		return tx.PutToken(newPAT(u.ID, org, now), secret)
	})
	return secret, err
}

// IssueAPIToken creates an API token of org allowed everything (every
// action on every dataset and org resource): the first token of a new
// org, from which narrower ones are made through the API.
func (s *Store) IssueAPIToken(org, name string, now time.Time) (TokenRecord, string, error) {
	all := []string{"create", "read", "update", "delete"}
	rec := TokenRecord{
		APIToken: APIToken{ID: NewID(), Name: name, Description: "issued by aplite admin",
			DatasetCapabilities: map[string]DatasetCaps{"*": {Ingest: all, Query: all, StarredQueries: all,
				VirtualFields: all, Trim: all, Vacuum: all, Data: all, Share: all}},
			OrgCapabilities: OrgCaps{Annotations: all, APITokens: all, AuditLog: all, Billing: all,
				Dashboards: all, Datasets: all, Endpoints: all, Flows: all, Integrations: all,
				Monitors: all, Notifiers: all, RBAC: all, SharedAccessKeys: all, Users: all, Views: all}},
		Kind: TokenAPI, OrgID: org, Issued: now.UTC(),
	}
	secret := NewSecret(PrefixAPI)
	err := s.Update(func(tx *Tx) error {
		if !tx.Has(KindOrg, "", org) {
			return fmt.Errorf("organization %q: %w", org, ErrNotFound)
		}
		return tx.PutToken(&rec, secret)
	})
	return rec, secret, err
}

// RemoveUser takes the user with email out of org (RemoveMember). The
// owner created on the first start stays: the server's own token is its.
func (s *Store) RemoveUser(email, org string) error {
	return s.Update(func(tx *Tx) error {
		u, found, err := tx.UserByEmail(email)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("user %q: %w", email, ErrNotFound)
		}
		if err := tx.RemoveMember(org, u.ID); errors.Is(err, ErrOwnerHome) {
			return fmt.Errorf("%w: %s owns the server and cannot leave organization %q, where its admin token acts", ErrInvalid, email, org)
		} else if err != nil {
			return fmt.Errorf("user %q in organization %q: %w", email, org, err)
		}
		return nil
	})
}
