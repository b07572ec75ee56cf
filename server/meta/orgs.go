package meta

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Membership is a user's role in one org: users are global (one record,
// one email), and each org they belong to keeps a Membership under
// KindMember, keyed by user id. A personal token acts only in the orgs of
// its user's memberships.
type Membership struct {
	UserID string    `json:"userId"`
	Role   string    `json:"role"`
	Added  time.Time `json:"added"`
}

// Roles are the roles the admin commands accept (the API takes any).
var Roles = []string{"owner", "admin", "user", "read-only"}

// MaxOrgIDLen bounds org ids so that an org's stored dataset names (its
// id, a prefix and an 80-character name) fit the storage's limit.
const MaxOrgIDLen = 36

// ErrInvalid wraps validation failures of the admin operations.
var ErrInvalid = errors.New("invalid")

// ValidOrgID checks an org id: 1 to MaxOrgIDLen letters, digits, '-' and
// '_'. Org ids never hold '.', which the storage relies on to keep the
// datasets of orgs apart.
func ValidOrgID(id string) error {
	if id == "" || len(id) > MaxOrgIDLen {
		return fmt.Errorf("%w: organization id %q must be 1 to %d characters long", ErrInvalid, id, MaxOrgIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("%w: organization id %q may only hold letters, digits, '-' and '_'", ErrInvalid, id)
		}
	}
	return nil
}

// Member returns user's membership of org.
func (t *Tx) Member(org, userID string) (Membership, bool) {
	var m Membership
	return m, t.Get(KindMember, org, userID, &m) == nil
}

// Member returns user's membership of org.
func (s *Store) Member(org, userID string) (Membership, bool) {
	key := memberKey(org, userID)
	a, hit, gen := s.members.get(key)
	if hit {
		return a.m, a.ok
	}
	if err := s.View(func(tx *Tx) error { a.m, a.ok = tx.Member(org, userID); return nil }); err == nil {
		s.members.put(key, a, gen)
	}
	return a.m, a.ok
}

// PutMember adds user to org with role, or changes the role of a member.
func (t *Tx) PutMember(org, userID, role string, now time.Time) error {
	m, ok := t.Member(org, userID)
	if !ok {
		m = Membership{UserID: userID, Added: now.UTC().Truncate(time.Second)}
	}
	m.Role = role
	return t.Put(KindMember, org, userID, m)
}

// UserOrgs lists the memberships of a user, by org id.
func (t *Tx) UserOrgs(userID string) (map[string]Membership, error) {
	out := map[string]Membership{}
	orgs, err := ListTx[Org](t, KindOrg, "")
	if err != nil {
		return nil, err
	}
	for _, o := range orgs {
		if m, ok := t.Member(o.ID, userID); ok {
			out[o.ID] = m
		}
	}
	return out, nil
}

// UserByEmail finds a user by email, case-insensitively.
func (t *Tx) UserByEmail(email string) (User, bool, error) {
	all, err := ListTx[User](t, KindUser, "")
	if err != nil {
		return User{}, false, err
	}
	for _, u := range all {
		if strings.EqualFold(u.Email, email) {
			return u, true, nil
		}
	}
	return User{}, false, nil
}

// adoptUsers makes every user that belongs to no org a member of org,
// with the role the user record carries: the users of a data directory
// from before there were several orgs all belonged to its one org.
func (t *Tx) adoptUsers(org string, now time.Time) error {
	orphans, err := t.orphanUsers()
	if err != nil {
		return err
	}
	for _, u := range orphans {
		if err := t.PutMember(org, u.ID, u.Role.Name, now); err != nil {
			return err
		}
	}
	return nil
}

// orphanUsers lists the users that belong to no org, from one scan of
// the memberships.
func (t *Tx) orphanUsers() ([]User, error) {
	members := map[string]bool{}
	err := t.EachMember("", func(_, userID string, _ Membership) error {
		members[userID] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	users, err := ListTx[User](t, KindUser, "")
	if err != nil {
		return nil, err
	}
	var out []User
	for _, u := range users {
		if !members[u.ID] {
			out = append(out, u)
		}
	}
	return out, nil
}

// EachMember calls fn for each membership of org ("" for every org), in
// key order: one cursor over the memberships, not a lookup per user and
// org.
func (t *Tx) EachMember(org string, fn func(org, userID string, m Membership) error) error {
	var prefix []byte
	if org != "" {
		prefix = key(org, "")
	}
	c := t.bucket(KindMember).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		o, user, ok := bytes.Cut(k, []byte{0})
		if !ok {
			return fmt.Errorf("meta: membership key %q has no org", k)
		}
		var m Membership
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("meta: decode membership %q: %w", k, err)
		}
		if err := fn(string(o), string(user), m); err != nil {
			return err
		}
	}
	return nil
}
