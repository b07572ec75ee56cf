package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// Administration the API has no route for: creating orgs, adding users
// to them, issuing a first token. `aplite admin` does it on a stopped
// server's data directory or on a running server.
//
// The metadata file is bbolt, which a process holds with an exclusive
// lock: a second writer is impossible by design, and making it possible
// (reopening the file per write) would cost every request. So a running
// server takes the commands itself, on a unix socket in its data
// directory (admin_socket.go), and a stopped server's file is opened
// directly, its lock keeping a server from starting meanwhile. OpenAdmin
// picks: the socket when a server answers on it, else the file. Both run
// the same code (adminStore).

// Admin is what `aplite admin` can do.
type Admin interface {
	// CreateOrg makes an org (id: letters, digits, '-', '_').
	CreateOrg(id, name string) (meta.Org, error)
	// Orgs lists every org.
	Orgs() ([]meta.Org, error)
	// AddUser makes email a member of org with role; a user new to the
	// server gets a personal token, returned (else "").
	AddUser(email, name, org, role string) (meta.User, string, error)
	// RemoveUser takes email out of org.
	RemoveUser(email, org string) error
	// Users lists the memberships of org ("" for all orgs).
	Users(org string) ([]meta.MemberRow, error)
	// IssueAPIToken creates an API token of org allowed everything.
	IssueAPIToken(org, name string) (string, error)
	// IssuePAT creates a personal token for the user with email.
	IssuePAT(email string) (string, error)
	// SetLimits changes the per-second limits of org's license (the ones
	// given; 0 is unlimited) and returns the license. A running server
	// applies them to the next request.
	SetLimits(org string, l Limits) (meta.License, error)
	// Close releases the file or connection.
	Close() error
}

// adminStore runs the admin operations on a metadata store. after, when
// set, runs after every successful change (the server drops its caches).
type adminStore struct {
	ms    *meta.Store
	after func()
	close func() error
}

func (a *adminStore) changed(err error) error {
	if err == nil && a.after != nil {
		a.after()
	}
	return err
}

func (a *adminStore) CreateOrg(id, name string) (meta.Org, error) {
	o, err := a.ms.CreateOrg(id, name, time.Now())
	return o, a.changed(err)
}

func (a *adminStore) Orgs() ([]meta.Org, error) { return meta.List[meta.Org](a.ms, meta.KindOrg, "") }

func (a *adminStore) AddUser(email, name, org, role string) (meta.User, string, error) {
	u, tok, err := a.ms.AddUser(email, name, org, role, time.Now())
	return u, tok, a.changed(err)
}

func (a *adminStore) RemoveUser(email, org string) error {
	return a.changed(a.ms.RemoveUser(email, org))
}

func (a *adminStore) Users(org string) ([]meta.MemberRow, error) {
	if org != "" && !a.hasOrg(org) {
		return nil, fmt.Errorf("organization %q: %w", org, meta.ErrNotFound)
	}
	return a.ms.Members(org)
}

func (a *adminStore) hasOrg(id string) bool {
	var o meta.Org
	return a.ms.Get(meta.KindOrg, "", id, &o) == nil
}

func (a *adminStore) IssueAPIToken(org, name string) (string, error) {
	if name == "" {
		name = "admin"
	}
	_, tok, err := a.ms.IssueAPIToken(org, name, time.Now())
	return tok, a.changed(err)
}

func (a *adminStore) IssuePAT(email string) (string, error) {
	tok, err := a.ms.IssuePAT(email, time.Now())
	return tok, a.changed(err)
}

// Limits are the per-second request limits of an org's license; nil
// leaves one as it is.
type Limits struct {
	APIRate    *int64 `json:"apiRateLimitPerSecond,omitempty"`
	IngestRate *int64 `json:"ingestRequestsPerSecond,omitempty"`
	QueryRate  *int64 `json:"queryRequestsPerSecond,omitempty"`
}

func (a *adminStore) SetLimits(org string, l Limits) (meta.License, error) {
	for _, f := range []struct {
		name string
		v    *int64
	}{{"api rate", l.APIRate}, {"ingest rate", l.IngestRate}, {"query rate", l.QueryRate}} {
		if f.v != nil && *f.v < 0 {
			return meta.License{}, fmt.Errorf("%w: %s %d: want requests per second, 0 for unlimited", meta.ErrInvalid, f.name, *f.v)
		}
	}
	var o meta.Org
	err := a.ms.Update(func(tx *meta.Tx) error {
		if err := tx.Get(meta.KindOrg, "", org, &o); err != nil {
			return fmt.Errorf("organization %q: %w", org, err)
		}
		set := func(dst *int64, v *int64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&o.License.APIRateLimitPerSecond, l.APIRate)
		set(&o.License.IngestLimitPerSecond, l.IngestRate)
		set(&o.License.QueryLimitPerSecond, l.QueryRate)
		o.MetaModified = time.Now().UTC().Truncate(time.Second)
		return tx.Put(meta.KindOrg, "", org, o)
	})
	return o.License, a.changed(err)
}

func (a *adminStore) Close() error {
	if a.close == nil {
		return nil
	}
	return a.close()
}

// ErrNoData is returned by OpenAdmin for a directory no server has used.
var ErrNoData = errors.New("no aplite metadata here: start `aplite serve -data DIR` once to create it")

// OpenAdmin returns the administration of the data directory dir: through
// the running server's admin socket when one answers, else on the
// metadata file directly (the server being stopped).
func OpenAdmin(dir string) (Admin, error) {
	if a, err := dialAdmin(dir); err == nil {
		return a, nil
	}
	if _, err := os.Stat(filepath.Join(dir, meta.FileName)); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoData)
	}
	// A server that is starting holds the metadata file before its
	// socket answers (it takes its address and data directory first), so
	// a script that starts one and runs aplite admin once the port is
	// bound waits for the socket a little rather than failing.
	deadline := time.Now().Add(adminStartWait)
	for {
		ms, err := meta.Open(dir)
		if err == nil {
			return &adminStore{ms: ms, close: ms.Close}, nil
		}
		if a, derr := dialAdmin(dir); derr == nil {
			return a, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w (a server holds the data directory but does not answer on %s)",
				err, filepath.Join(dir, AdminSocketName))
		}
	}
}

// adminStartWait is how long OpenAdmin waits for a server that holds the
// data directory to answer on its socket; meta.Open's own lock timeout
// paces the tries.
const adminStartWait = 10 * time.Second
