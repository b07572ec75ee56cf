package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/aplite/aplite/server/meta"
)

// A monitor acts as the principal that last created or updated it (whose
// rights its query was checked with), with that principal's rights as
// they are at each run: a token since deleted or expired, a user no longer
// in the org or rights since taken away fail the run (state "forbidden")
// before anything is read. A monitor stored before owners were recorded
// has none; it runs with no dataset rights, and its history says to
// update it, which makes the updater its owner.

// errNoOwner is the run error of a monitor that has no recorded owner.
var errNoOwner = errors.New("this monitor has no recorded creator (it was stored before monitors ran as their creator), so it runs with no dataset rights; update it (PUT /v2/monitors/{id}) to have it run as you")

// ownerOf is the owner record of the principal p.
func ownerOf(p *principal) meta.MonitorOwner {
	if p.personal() {
		return meta.MonitorOwner{Kind: meta.TokenPersonal, UserID: p.userID}
	}
	return meta.MonitorOwner{Kind: meta.TokenAPI, TokenID: p.tok.ID}
}

// forbiddenRun is a run error that refuses to read: the run's state is
// "forbidden", not "error".
type forbiddenRun struct{ msg string }

func (e *forbiddenRun) Error() string { return e.msg }

// monitorPrincipal returns whom monitor id of org acts as at now: its
// owner with current rights. A monitor without an owner gets a principal
// that may read no dataset, and errNoOwner to say why.
func (s *Server) monitorPrincipal(org, id string, now time.Time) (*principal, error) {
	var o meta.MonitorOwner
	if err := s.meta.Get(meta.KindMonitorOwner, org, id, &o); err != nil {
		if errors.Is(err, meta.ErrNotFound) {
			return &principal{tok: &meta.TokenRecord{Kind: meta.TokenAPI}, org: org}, errNoOwner
		}
		return nil, err
	}
	switch o.Kind {
	case meta.TokenAPI:
		var rec meta.TokenRecord
		err := s.meta.Get(meta.KindToken, "", o.TokenID, &rec)
		switch {
		case errors.Is(err, meta.ErrNotFound) || err == nil && rec.OrgID != org:
			return nil, &forbiddenRun{fmt.Sprintf("the monitor's creator, API token %s, no longer exists: nothing was read", o.TokenID)}
		case err != nil:
			return nil, err
		case rec.Expired(now):
			return nil, &forbiddenRun{fmt.Sprintf("the monitor's creator, API token %s, expired at %s: nothing was read",
				o.TokenID, rec.ExpiresAt.UTC().Format(time.RFC3339))}
		}
		return &principal{tok: &rec, org: org, userID: rec.UserID}, nil
	case meta.TokenPersonal:
		m, member := s.meta.Member(org, o.UserID)
		if !member {
			return nil, &forbiddenRun{fmt.Sprintf("the monitor's creator, user %s, is no longer a member of the organization: nothing was read", o.UserID)}
		}
		return &principal{tok: &meta.TokenRecord{Kind: meta.TokenPersonal, UserID: o.UserID}, org: org,
			userID: o.UserID, readOnly: readOnlyRole(m.Role)}, nil
	}
	return nil, &forbiddenRun{fmt.Sprintf("the monitor's creator is of an unknown kind %q: nothing was read", o.Kind)}
}

// who names a principal in a run's messages.
func (p *principal) who() string {
	if p.personal() {
		return "user " + p.userID
	}
	if p.tok.ID == "" {
		return "nobody"
	}
	return "API token " + p.tok.ID
}
